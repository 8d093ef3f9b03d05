/**
 * @module
 * The summary request: a structured prompt, the conversation as labelled text, and the running
 * summary when the conversation is summarized in parts.
 */
import type { ChatRequest, RequestFormat } from '../transcript/index.js';

/**
 * How the last user message of every summary request begins. Servers and tests can recognize a
 * summary request by it (the emulators answer it with a plain-text summary).
 */
export const SUMMARY_REQUEST_MARKER = '# Conversation summary request';

/** The system prompt of a summary request. */
export const SUMMARY_SYSTEM_PROMPT =
  'You write handoff summaries of conversations between a user and an AI agent. You are not a participant: do not continue the conversation, do not answer the user, do not call tools. Write only the summary.';

/** The sections every summary has, in order. */
export const SUMMARY_SECTIONS = [
  'Goal: what the user wants, in their words where it matters.',
  'Instructions: constraints and preferences the user stated (style, tools, things to avoid).',
  'Discoveries: what was learned about the code, the data or the environment.',
  'Accomplished: what was done, with results (tests passing, files changed).',
  'Relevant files: every file path touched or discussed, and why it matters.',
  'Open work: what is unfinished or was asked for and not done yet, and the next step.',
] as const;

/** Inputs of {@link buildSummaryRequest}. */
export interface SummaryRequestOptions {
  /** The conversation part, already serialized as labelled text. */
  conversation: string;
  /** The running summary when this is not the first part. */
  previousSummary?: string;
  /** 1-based part number and count, when the conversation is summarized in parts. */
  part?: { index: number; of?: number };
  model?: string;
  format?: RequestFormat;
  /** The summary's output cap. */
  maxTokens: number;
}

/**
 * A summary request: a system prompt, then one user message that starts with
 * {@link SUMMARY_REQUEST_MARKER}, lists the sections, asks to preserve every file path, identifier
 * and decision exactly, and quotes the conversation between markers. No tools, so the model can
 * only write text.
 *
 * @example
 * const request = buildSummaryRequest({ conversation: serializeTranscript(messages), maxTokens: 4_096 });
 */
export function buildSummaryRequest({
  conversation,
  previousSummary,
  part,
  model,
  format = 'openai',
  maxTokens,
}: SummaryRequestOptions): ChatRequest {
  const sections = SUMMARY_SECTIONS.map((section, index) => `${index + 1}. ${section}`).join('\n');
  const partName = part ? ` (part ${part.index}${part.of ? ` of ${part.of}` : ''})` : '';
  const lines = [
    SUMMARY_REQUEST_MARKER,
    '',
    'Summarize the conversation below so that an agent with no other context can continue the work. Use these sections:',
    sections,
    '',
    'Preserve every file path, identifier and decision exactly as written. Quote error messages verbatim. Be complete but brief; do not invent anything.',
  ];
  if (previousSummary !== undefined) {
    lines.push(
      '',
      'The earlier part of the conversation is already summarized below. Write one updated summary that keeps everything it says and adds the new part.',
      '',
      '## Summary so far',
      previousSummary,
    );
  }
  lines.push(
    '',
    `## Conversation${partName}`,
    '<<<',
    conversation,
    '>>>',
    '',
    'Write the summary now, with the sections above.',
  );
  const request: ChatRequest = {
    format,
    messages: [
      { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
      { role: 'user', content: lines.join('\n') },
    ],
    tools: [],
    maxTokens,
    extra: {},
  };
  if (model !== undefined) request.model = model;
  return request;
}
