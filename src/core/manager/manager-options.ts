/**
 * @module
 * The option and result shapes of the manager's compaction and measuring methods.
 */
import type { CompactTranscriptOptions, Summarizer } from '../compact/index.js';
import type { ChatRequest, Message } from '../transcript/index.js';

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
