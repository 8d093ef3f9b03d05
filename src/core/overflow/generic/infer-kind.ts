/**
 * @module
 * The kind from the figures and how they relate: the prompt over the window is `context`; the prompt
 * within it and prompt + output over it is `budget`; the output over its cap is `output_cap`.
 * Figures that show the request fitting are not an overflow, whatever the words say.
 */
import type { OverflowFigures, OverflowKind } from '../types.js';

/** What {@link inferKind} weighs. */
export interface InferKindOptions {
  figures: OverflowFigures;
  /** The kind the words say, if any (see `kindFromWords`). */
  words?: Exclude<OverflowKind, 'none'>;
  /** The requested output was stated negative: the server computed no room for it. */
  negativeOutput?: boolean;
}

function promptOf({ input, total, output }: OverflowFigures): number | undefined {
  if (input !== undefined) return input;
  return total !== undefined && output !== undefined ? total - output : undefined;
}

function kindAgainstWindow(figures: OverflowFigures, window: number, words: InferKindOptions['words']) {
  const { output, total } = figures;
  const prompt = promptOf(figures);
  if (prompt !== undefined) {
    if (prompt > window) return 'context';
    if (output !== undefined) return prompt + output > window ? 'budget' : 'none';
    if (total !== undefined) return total > window ? 'budget' : 'none';
    return words ?? 'none';
  }
  if (output !== undefined) return output > window ? 'output_cap' : 'budget';
  if (total !== undefined) return total > window ? 'context' : (words ?? 'none');
  return words ?? 'context';
}

/**
 * Decides the kind. A stated window with nothing to compare counts as an overflow (`This endpoint's
 * maximum context length is 65536 tokens.`); any other figure without a relation defers to the words.
 *
 * @example
 * inferKind({ figures: { window: 200_000, input: 198_214, output: 8_192 } }); // 'budget'
 */
export function inferKind({ figures, words, negativeOutput = false }: InferKindOptions): OverflowKind {
  if (negativeOutput) return 'context';
  const { window, output, outputLimit } = figures;
  if (outputLimit !== undefined && output !== undefined && output > outputLimit) return 'output_cap';
  if (window !== undefined) return kindAgainstWindow(figures, window, words);
  if (outputLimit !== undefined) return output === undefined ? 'output_cap' : 'none';
  return words ?? 'none';
}
