/**
 * @module
 * The manager's options, checked, and the option and result shapes of its compaction and measuring
 * methods.
 */
import type { ClampMode, WindowCheck } from '../budget/index.js';
import type { CompactTranscriptOptions, Summarizer } from '../compact/index.js';
import { SpillwayError } from '../errors/index.js';
import type { TokenCounter } from '../tokens/index.js';
import { templateCostsProblem } from '../tokens/overheads.js';
import type { ChatRequest, Message } from '../transcript/index.js';
import type { ManagerEvent } from './events.js';

/** Options of {@link ContextWindowManager.compact}. */
export interface ManagerCompactOptions
  extends Pick<CompactTranscriptOptions, 'format' | 'signal' | 'summaryMaxTokens' | 'keepTurns'> {
  /** The whole history to compact. */
  messages: readonly Message[];
  /** Writes the summary; without it the non-LLM fallback is used. */
  summarize?: Summarizer;
  /** The tools the conversation's requests carry (they count against the budget). */
  tools?: ChatRequest['tools'];
  model?: string;
  /** The `max_tokens` the conversation's requests ask for (it decides the budget). */
  maxTokens?: number;
}

/** The estimate of a request without fitting it: what `fit` compares to the budget. */
export interface RequestMeasure {
  /** Calibrated estimate with the stored compression levels applied, not anchored. */
  estimate: number;
  /** The least the request can count, by the calibration's lower factors. */
  low: number;
  budget: number;
  window: number;
  reserve: number;
  schemaTokens: number;
}

/** Options of a `ContextWindowManager`. */
export interface ContextWindowManagerOptions {
  /** The model's context window. Unknown: the conservative 8,192 fallback. */
  contextLength?: number;
  /** The model's reply cap. */
  outputCap?: number;
  /**
   * What the provider checks against the window (default `prompt+reply`); `prompt` (llama.cpp)
   * reserves only what a reply needs. Learned from an overflow whose sender is known to check the
   * prompt alone.
   */
  windowCheck?: WindowCheck;
  /** The model id, for the tokenizer family and learned windows. Requests may carry their own. */
  model?: string;
  /** Estimate with this instead of Spillway's estimator (it should not count fewer than the model). */
  counter?: TokenCounter;
  /**
   * A counter you know counts as the provider does (your own server's tokenizer): trusted from the
   * first send, it counts a request when the estimate alone cannot tell whether it fits.
   */
  exact?: TokenCounter;
  /**
   * The model's tokenizer as its id suggests (`exactCounterFor` in `spillway/tokenizers`), counting
   * with the template it names (`template`; else the estimator's upper figures): a guess until its
   * counts of the first requests agree with the prompt tokens the provider reports (within 5%, or
   * 64 tokens); then it counts as `exact` does, with the spread the reports showed, and every later
   * report checks it again. One that disagrees is never used again for this model (the check is
   * kept in the calibration state) and a `notice` says so.
   */
  tokenizer?: TokenCounter;
  /** A fixed reply reserve, instead of what a reply needs (1,024 tokens, or less when asked for less). */
  reserve?: number;
  /** Share of the window kept free for estimation error (default 0.03). */
  safetyRatio?: number;
  /** When to set or lower `max_tokens` (default `auto`: fill it in when the request has none). */
  clamp?: ClampMode;
  /** Receives `fit`, `cut`, `calibrate` and `notice` events. */
  onEvent?: (event: ManagerEvent) => void;
  /**
   * Whether `observe` checks usage for a silent truncation (a server that
   * cut the prompt to its window and answered 200, as Ollama does) and learns the window (default true).
   */
  detectSilentTruncation?: boolean;
  /** Whether a cut may elide old tool results (default true); otherwise only whole turns are dropped. */
  compress?: boolean;
  /** Whether the caller offers the `recall` tool: markers then say how to get what they stand for. */
  recall?: boolean;
  /**
   * Turns a new cut leaves room for at the conversation's recent append rate (default 5,
   * `CUT_RUNWAY_TURNS`). More means rarer cuts and a provider cache that stays warm longer; fewer
   * means each request keeps more of the history; 0 cuts only what does not fit.
   */
  cutRunway?: number;
}

/** Throws `invalid_config`, naming the option, for options a manager cannot work with. */
export function checkManagerOptions(options: unknown): asserts options is ContextWindowManagerOptions {
  if (typeof options !== 'object' || options === null)
    throw new SpillwayError(
      'invalid_config',
      'ContextWindowManager takes an options object, such as { contextLength: 128000 }',
    );
  const given = options as ContextWindowManagerOptions;
  for (const key of ['contextLength', 'outputCap', 'reserve'] as const) {
    const value = given[key];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0))
      throw new SpillwayError('invalid_config', `${key} must be a positive integer, got ${value}`);
  }
  if (
    given.reserve !== undefined &&
    given.contextLength !== undefined &&
    given.reserve >= given.contextLength
  )
    throw new SpillwayError(
      'invalid_config',
      `reserve (${given.reserve}) must be less than contextLength (${given.contextLength}): it is the part of the window kept for the reply, and the prompt needs the rest`,
    );
  if (given.safetyRatio !== undefined && !(given.safetyRatio >= 0 && given.safetyRatio < 0.5))
    throw new SpillwayError('invalid_config', `safetyRatio must be in [0, 0.5), got ${given.safetyRatio}`);
  if (given.cutRunway !== undefined && !(given.cutRunway >= 0 && given.cutRunway <= 100))
    throw new SpillwayError(
      'invalid_config',
      `cutRunway must be a number of turns in [0, 100], got ${given.cutRunway}`,
    );
  for (const key of ['counter', 'exact', 'tokenizer'] as const) {
    const problem = counterProblem(given[key]);
    if (problem) throw new SpillwayError('invalid_config', `${key} ${problem}`);
  }
}

/** What is wrong with a counter option, or undefined when it is absent or sound. */
function counterProblem(counter: unknown): string | undefined {
  if (counter === undefined) return undefined;
  if (typeof counter !== 'object' || counter === null)
    return `must be a counter ({ name, count(text) }), such as exactCounterFor(model) gives, got ${String(counter)}`;
  const { name, count, template } = counter as Partial<TokenCounter>;
  if (typeof name !== 'string' || typeof count !== 'function')
    return 'must have a string name and a count(text) function, such as exactCounterFor(model) gives';
  if (template === undefined) return undefined;
  const problem = templateCostsProblem(template);
  return problem === undefined ? undefined : `template: ${problem}`;
}
