import { SpillwayError } from '../core/index.js';

/**
 * The prompt of a `-p` run or of text piped in (`echo "Summarize README.md" | spillway chat`):
 * refused when empty, since a turn without a task would only spend tokens.
 *
 * @example
 * const prompt = await readPipedPrompt({ prompt: values.print, stdin: process.stdin });
 */
export async function readPipedPrompt({
  prompt,
  stdin,
}: {
  /** The `-p` text, when given: it wins, and standard input is left alone. */
  prompt?: string;
  stdin?: AsyncIterable<unknown> & { isTTY?: boolean };
}): Promise<string | undefined> {
  let text = prompt;
  if (text === undefined) {
    if (stdin === undefined || stdin.isTTY) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    text = Buffer.concat(chunks).toString('utf8');
  }
  if (text.trim() === '')
    throw new SpillwayError(
      'invalid_argument',
      `the prompt is empty; give the task with -p "…" or on standard input (echo "…" | spillway chat)`,
      { data: { reason: 'empty_prompt' } },
    );
  return text.trim();
}
