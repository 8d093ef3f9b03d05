import { estimateTokens } from '../core/index.js';

/**
 * How much one tool result may take, in estimated tokens, for the model in use: the chat gives its
 * tools a third of the prompt budget, so a large file or a chatty command cannot crowd out the rest
 * of the conversation (the newest tool result is never compressed or pruned).
 */
export interface OutputLimit {
  /** Estimated tokens one result may take (`Infinity`: no limit besides the characters cap). */
  tokens(): number;
  /** The model, for the tokenizer family of the estimate. */
  model?: string;
}

/** No limit besides each tool's characters cap. */
export const NO_OUTPUT_LIMIT: OutputLimit = { tokens: () => Number.POSITIVE_INFINITY };

/**
 * How many of `lines`, from the first, fit in `maxChars` characters and the limit's tokens. Lines
 * are estimated one by one and added up, which never counts fewer tokens than the joined text.
 *
 * @example
 * const kept = linesThatFit({ lines, maxChars: 64_000, limit }); // lines.slice(0, kept)
 */
export function linesThatFit({
  lines,
  maxChars,
  limit,
}: {
  lines: readonly string[];
  maxChars: number;
  limit: OutputLimit;
}): number {
  const maxTokens = limit.tokens();
  const options = limit.model === undefined ? {} : { model: limit.model };
  let chars = 0;
  let tokens = 0;
  let kept = 0;
  for (const line of lines) {
    chars += line.length + 1;
    if (chars > maxChars) break;
    if (Number.isFinite(maxTokens)) {
      tokens += estimateTokens(`${line}\n`, options).total;
      if (tokens > maxTokens) break;
    }
    kept++;
  }
  return kept;
}
