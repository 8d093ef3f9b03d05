/**
 * @module
 * `compactTranscript`: the older part of a transcript replaced by one user-role summary message, by
 * the model when a summarizer is given, else by the non-LLM fallback; the newest turns stay verbatim.
 */
import { computeBudget, FALLBACK_CONTEXT_LENGTH } from '../budget/index.js';
import { SpillwayError } from '../errors/index.js';
import { createEstimator, EstimateCache, tokenizerFamilyOf } from '../tokens/index.js';
import {
  type ChatRequest,
  type Message,
  type RequestFormat,
  requireMessages,
  requireObject,
  type ToolDefinition,
  type UserMessage,
} from '../transcript/index.js';
import { compactionLayout, compactionUnits } from './compaction-layout.js';
import { fallbackDigest } from './fallback-digest.js';
import { appendMissingFacts, extractMustKeepFacts } from './must-keep-facts.js';
import type { RecallSpan } from './recall.js';
import { summarizeSpan } from './summarize-span.js';
import type { Summarizer, SummaryUsage } from './summarizer.js';
import { type CompactionIssueCode, validateCompaction } from './validate-compaction.js';

/** A prompt estimate of messages and tools, calibrated (what `fit` would compare to the budget). */
export type RequestEstimator = (request: {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
}) => number;

/** Inputs of {@link compactTranscript}. */
export interface CompactTranscriptOptions {
  messages: readonly Message[];
  /** The tools the conversation's requests carry: they count against the budget. */
  tools?: readonly ToolDefinition[];
  /** The model, for the tokenizer family and the summary requests. */
  model?: string;
  /** The wire format of the summary requests (default `openai`). */
  format?: RequestFormat;
  /** Writes the summary; without it the non-LLM fallback is used. */
  summarize?: Summarizer;
  signal?: AbortSignal;
  /** The context window (default 8,192). */
  window?: number;
  /** Prompt tokens the compacted transcript must fit (default: the budget of `window`). */
  budget?: number;
  /** The summary request's output cap (default 16,384; never more than half the window). */
  summaryMaxTokens?: number;
  /** Whole turns kept verbatim (default: the newest turns that fit in 30% of the budget, at least one). */
  keepTurns?: number;
  /** The estimator (default: Spillway's, for `model`'s tokenizer family, uncalibrated). */
  estimate?: RequestEstimator;
  /** The id the summary's placeholder gets (default 1). */
  recallId?: number;
}

/** Why a compaction produced nothing usable. */
export type CompactionFailureCode = CompactionIssueCode | 'nothing_to_compact' | 'summarizer_failed';

interface CompactionOutcome {
  /** `llm`: one summary request; `rolling`: several, merged; `fallback`: no model. */
  kind: 'llm' | 'rolling' | 'fallback';
  /** The compacted transcript: kept messages (the same objects) and the summary message. */
  messages: Message[];
  /** The compacted-away messages, in order: write them to the store (`applyCompaction` keeps them). */
  removed: Message[];
  /** The new user-role summary message. */
  summary: UserMessage;
  /** The span the summary's placeholder stands for, for `recall`. */
  recall: RecallSpan[];
  /** Estimated prompt tokens before and after, tools included. */
  before: number;
  estimate: number;
  budget: number;
  /** Whole turns kept verbatim after the summary. */
  keptTurns: number;
  summaryRequests: number;
  usage: SummaryUsage;
  /** A smaller window a summary request's overflow stated: learn it (`manager.learnWindow`). */
  learnedWindow?: number;
  /** Must-keep facts the summary dropped, appended to it. */
  missingFacts: string[];
  /** What happened, in order, for logs and reports. */
  steps: string[];
}

/**
 * The outcome of {@link compactTranscript}: `ok` when the result passed {@link validateCompaction}.
 * A result that is smaller but still over the budget comes back with `code: 'over_budget'` and its
 * messages, for a next step to build on.
 */
export type CompactionResult =
  | ({ ok: true } & CompactionOutcome)
  | ({ ok: false; code: CompactionFailureCode; message: string } & Partial<CompactionOutcome> & {
        steps: string[];
      });

function defaultEstimator(model: string | undefined): RequestEstimator {
  const cache = new EstimateCache(createEstimator({ family: tokenizerFamilyOf(model) }));
  return (request) => cache.request(request as Pick<ChatRequest, 'messages' | 'tools'>).total;
}

/**
 * Compacts a transcript: the system prompt (and the first user message, when small) and the newest
 * whole turns stay verbatim; everything between becomes one user-role message that starts with a
 * recallable placeholder (`[compacted #7: …]`). With a summarizer the span is summarized (one request
 * when it fits, else a rolling summary; a request that overflows is shrunk by the overshoot its error
 * reports, and messages cut from it stay verbatim after the summary); the summary is then checked
 * without a model and file paths, identifiers, errors and requests it dropped are appended. Without a
 * summarizer, the fallback digest: user messages verbatim, assistant text cut short, one line per
 * tool call. Every input message ends up either in `messages` or in `removed`.
 *
 * @example
 * const result = await compactTranscript({ messages, summarize, window: 32_768 });
 * if (result.ok) history = result.messages; // store.applyCompaction(…) keeps result.removed
 */
export async function compactTranscript(options: CompactTranscriptOptions): Promise<CompactionResult> {
  requireObject(options, 'compactTranscript', 'options { messages, summarize, window }');
  requireMessages(options.messages, 'compactTranscript');
  if (options.summarize !== undefined && typeof options.summarize !== 'function')
    throw new SpillwayError(
      'invalid_argument',
      'compactTranscript: summarize must be a function that sends a summary request (or absent, for the non-LLM digest)',
    );
  const { messages, model, summarize, signal, summaryMaxTokens, recallId = 1 } = options;
  const tools = options.tools ?? [];
  const window = options.window ?? FALLBACK_CONTEXT_LENGTH;
  const budget = options.budget ?? computeBudget({ contextLength: window }).budget;
  const estimate = options.estimate ?? defaultEstimator(model);
  const estimateMessages = (list: readonly Message[]) => estimate({ messages: list, tools });
  const estimateOne = (message: Message) =>
    estimate({ messages: [message], tools: [] }) - estimate({ messages: [], tools: [] });
  const before = estimateMessages(messages);
  const layout = compactionLayout({
    messages,
    budget,
    estimateOf: estimateOne,
    keepTurns: options.keepTurns,
  });
  const steps: string[] = [];
  if (layout.boundary <= layout.keptHead)
    return {
      ok: false,
      code: 'nothing_to_compact',
      message:
        layout.turns <= 1
          ? 'there is no history before the newest turn to compact'
          : 'nothing lies between the kept head and the kept turns; keep fewer turns',
      steps,
    };
  const units = compactionUnits(messages, layout.keptHead, layout.boundary);
  const head = messages.slice(0, layout.keptHead);
  const tail = messages.slice(layout.boundary);

  let kind: CompactionOutcome['kind'] = 'fallback';
  let body: string;
  let summarizedEnd = layout.boundary;
  let summaryRequests = 0;
  let usage: SummaryUsage = { promptTokens: 0, completionTokens: 0 };
  let learnedWindow: number | undefined;
  let missingFacts: string[] = [];
  if (summarize) {
    const result = await summarizeSpan({
      messages,
      units,
      summarize,
      ...(signal === undefined ? {} : { signal }),
      window,
      budget,
      ...(summaryMaxTokens === undefined ? {} : { summaryMaxTokens }),
      ...(model === undefined ? {} : { model }),
      ...(options.format === undefined ? {} : { format: options.format }),
      estimateRequest: (request) => estimate({ messages: request.messages, tools: request.tools }),
    });
    steps.push(...result.steps);
    summaryRequests = result.requests;
    usage = result.usage;
    learnedWindow = result.learnedWindow;
    if (result.summary === undefined || result.summarized === 0)
      return {
        ok: false,
        code: 'summarizer_failed',
        message: `the summary could not be written (${result.requests} requests): ${
          (result.error as Error | undefined)?.message ?? 'no text came back'
        }`,
        steps,
        summaryRequests,
        usage,
        ...(learnedWindow === undefined ? {} : { learnedWindow }),
      };
    summarizedEnd = (units[result.summarized - 1] as [number, number])[1];
    const checked = appendMissingFacts(
      result.summary,
      extractMustKeepFacts(messages.slice(layout.keptHead, summarizedEnd)),
    );
    missingFacts = checked.missing;
    if (checked.missing.length > 0)
      steps.push(`summary missed ${checked.missing.length} must-keep facts; appended`);
    kind = result.chunks > 1 || result.mode === 'rolling' ? 'rolling' : 'llm';
    body = checked.text;
  } else {
    const marker = placeholder(recallId, layout.boundary - layout.keptHead, 'fallback');
    const room = budget - estimateMessages([...head, { role: 'user', content: `${marker}\n` }, ...tail]);
    const emptyCost = estimate({ messages: [{ role: 'user', content: '' }], tools: [] });
    body = fallbackDigest({
      messages: messages.slice(layout.keptHead, layout.boundary),
      fits: (text) =>
        estimate({ messages: [{ role: 'user', content: text }], tools: [] }) - emptyCost <= room,
    });
    steps.push('condensed without a model');
  }

  const removed = messages.slice(layout.keptHead, summarizedEnd);
  const summary: UserMessage = {
    role: 'user',
    content: `${placeholder(recallId, removed.length, kind)}\n\n${body}`,
  };
  const compacted = [...head, summary, ...messages.slice(summarizedEnd, layout.boundary), ...tail];
  if (summarizedEnd < layout.boundary)
    steps.push(`${layout.boundary - summarizedEnd} messages left out of the summary stay verbatim after it`);
  const outcome: CompactionOutcome = {
    kind,
    messages: compacted,
    removed,
    summary,
    recall: [
      {
        id: String(recallId),
        kind: 'compacted',
        label: `${removed.length} messages ${kind === 'fallback' ? 'condensed' : 'summarized'}`,
        messages: removed,
      },
    ],
    before,
    estimate: estimateMessages(compacted),
    budget,
    keptTurns: layout.keptTurns,
    summaryRequests,
    usage,
    missingFacts,
    steps,
    ...(learnedWindow === undefined ? {} : { learnedWindow }),
  };
  const validation = validateCompaction({
    before: messages,
    after: compacted,
    budget,
    estimate: estimateMessages,
  });
  if (validation.ok) return { ok: true, ...outcome };
  return { ok: false, code: validation.code, message: validation.message, ...outcome };
}

function placeholder(recallId: number, count: number, kind: CompactionOutcome['kind']): string {
  const what = count === 1 ? '1 earlier message' : `${count} earlier messages`;
  const how = kind === 'fallback' ? 'condensed without a model (tool results left out)' : 'summarized';
  return `[compacted #${recallId}: ${what} ${how}; recall #${recallId} brings them back]`;
}
