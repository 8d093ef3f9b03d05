/**
 * Trims a pi coding-agent session file (JSONL, as pi writes it under ~/.pi/agent/sessions) to the
 * replay fixture format of test/fixtures/transcripts: one header line, then one OpenAI Chat message a
 * line, each assistant message with the usage the provider reported for the request that produced it.
 *
 * Run: `npx tsx scripts/trim-pi-session.ts <session.jsonl> <out.jsonl> --steps 150 --source '<json>'`
 *
 * What is kept: user text, assistant text and tool calls, tool results, and per-step usage. What is
 * dropped, and why (the README of the fixtures says the same):
 * - thinking blocks: their signatures are opaque and servers' templates drop earlier reasoning;
 * - assistant messages pi recorded as aborted or failed (no usage, never answered);
 * - everything after the first line that is not JSON, the first compaction, the first image or the
 *   first command the user ran by hand (pi renders those in its own words, which are not recorded);
 * - everything after `--steps` provider calls.
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface PiBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  arguments?: unknown;
}

interface PiUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

interface PiMessage {
  role: string;
  content?: PiBlock[] | string;
  toolCallId?: string;
  isError?: boolean;
  usage?: PiUsage;
  stopReason?: string;
  model?: string;
}

/** Where conversion stopped, and why. */
type Stop = { reason: string; line: number } | undefined;

function textParts(content: PiMessage['content']): Array<{ type: 'text'; text: string }> | undefined {
  const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);
  if (blocks.some((block) => block.type === 'image')) return undefined;
  return blocks
    .filter((block) => block.type === 'text')
    .map((block) => ({ type: 'text' as const, text: block.text ?? '' }));
}

function assistantLine(message: PiMessage): Record<string, unknown> {
  const blocks = typeof message.content === 'string' ? [] : (message.content ?? []);
  const texts = blocks.filter((block) => block.type === 'text').map((block) => block.text ?? '');
  const calls = blocks
    .filter((block) => block.type === 'toolCall')
    .map((block) => ({
      id: block.id,
      type: 'function',
      function: { name: block.name, arguments: JSON.stringify(block.arguments ?? {}) },
    }));
  const wire: Record<string, unknown> = {
    role: 'assistant',
    content:
      texts.length === 0
        ? null
        : texts.length === 1
          ? texts[0]
          : texts.map((text) => ({ type: 'text', text })),
  };
  if (calls.length > 0) wire.tool_calls = calls;
  const usage = message.usage as PiUsage;
  return {
    message: wire,
    usage: {
      input: usage.input,
      cacheRead: usage.cacheRead,
      cacheWrite: usage.cacheWrite,
      output: usage.output,
    },
    model: message.model,
  };
}

function convert(lines: string[], maxSteps: number): { out: Record<string, unknown>[]; stop: Stop } {
  const out: Record<string, unknown>[] = [];
  let steps = 0;
  for (const [index, line] of lines.entries()) {
    let entry: { type?: string; message?: PiMessage };
    try {
      entry = JSON.parse(line);
    } catch {
      return { out, stop: { reason: 'a line that is not JSON', line: index + 1 } };
    }
    if (entry.type === 'compaction')
      return { out, stop: { reason: 'the first compaction', line: index + 1 } };
    if (entry.type !== 'message' || !entry.message) continue;
    const message = entry.message;
    if (message.role === 'bashExecution')
      return { out, stop: { reason: 'a command the user ran by hand', line: index + 1 } };
    if (message.role === 'assistant') {
      if (message.stopReason === 'aborted' || message.stopReason === 'error') continue;
      if (steps === maxSteps) return { out, stop: { reason: `${maxSteps} steps`, line: index + 1 } };
      steps++;
      out.push(assistantLine(message));
      continue;
    }
    const parts = textParts(message.content);
    if (!parts) return { out, stop: { reason: 'the first image', line: index + 1 } };
    if (message.role === 'user') out.push({ message: { role: 'user', content: parts } });
    else if (message.role === 'toolResult')
      out.push({ message: { role: 'tool', tool_call_id: message.toolCallId, content: parts } });
  }
  return { out, stop: undefined };
}

const [input, output, ...flags] = process.argv.slice(2);
if (!input || !output) {
  console.error(
    'usage: tsx scripts/trim-pi-session.ts <session.jsonl> <out.jsonl> [--steps N] [--source JSON]',
  );
  process.exit(2);
}
const option = (name: string) => {
  const at = flags.indexOf(name);
  return at === -1 ? undefined : flags[at + 1];
};
const maxSteps = Number(option('--steps') ?? 150);
const lines = readFileSync(input, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '');
const { out, stop } = convert(lines, maxSteps);
const header = {
  format: 'spillway-transcript-1',
  agent: 'pi',
  source: JSON.parse(option('--source') ?? '{}'),
  trimmed: { stoppedAt: stop ?? null, steps: out.filter((line) => 'usage' in line).length },
};
writeFileSync(output, `${[header, ...out].map((line) => JSON.stringify(line)).join('\n')}\n`);
console.log(JSON.stringify(header));
