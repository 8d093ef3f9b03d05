/**
 * @module
 * Which tool outputs the agent is still working with. An output is in use from the step it came in
 * until the last later assistant message or tool call that names one of its paths or identifiers;
 * an output superseded by a later run of the same call (a re-read of the same file, a rerun of the
 * same command) is in use no longer; an error output that no later run answered stays in use; so does
 * the newest read of a file the agent has had to read again after more than two cuts (a re-read
 * loop, stopped by keeping it). A cut elides the outputs whose last use is oldest first. Deterministic
 * and linear in the size of the transcript: names are collected once per message.
 */
import { contentText, type Message, type ToolCall } from '../transcript/index.js';
import { callArguments, callPath, indexToolCalls, primaryArgument } from './tool-activity.js';

/** A name worth tracking: a path or an identifier of four or more characters. */
const NAME = /[A-Za-z_][A-Za-z0-9_./-]{3,}/g;
/** Names in more than this share of the outputs say nothing about any one of them. */
const COMMON_SHARE = 0.3;
/** Names are taken from the first this many characters of a message (where headers and paths are). */
const NAMES_FROM_CHARS = 6_000;
/** At most this many distinct names are taken from one message. */
const MAX_NAMES = 200;
/** An output that reports a failure: a Python traceback, a failing test, a non-zero exit status. */
const ERROR_OUTPUT =
  /Traceback \(most recent call last\)|^\s*[A-Za-z_.]*(?:Error|Exception): |^FAILED\b|^error(?:\[\w+\])?: |<returncode>[1-9]|exit (?:code|status) [1-9]/m;
/** Cut and re-read more often than this, a file's newest read is kept whole: a re-read loop. */
export const MAX_REREADS_AFTER_CUT = 2;

const NAMES = new WeakMap<Message, ReadonlySet<string>>();

function namesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.slice(0, NAMES_FROM_CHARS).matchAll(NAME)) {
    names.add(match[0].replace(/[./-]+$/, ''));
    if (names.size >= MAX_NAMES) break;
  }
  return names;
}

function callText(call: Pick<ToolCall, 'arguments'>): string {
  return Object.values(callArguments(call))
    .filter((value): value is string => typeof value === 'string')
    .join('\n');
}

/** The names a message carries: its text, and each call's arguments. Cached per message. */
function messageNames(message: Message): ReadonlySet<string> {
  let names = NAMES.get(message);
  if (names === undefined) {
    const parts = [contentText(message.content)];
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) parts.push(callText(call));
    names = namesIn(parts.join('\n'));
    NAMES.set(message, names);
  }
  return names;
}

/** The program a call runs (the first word of its command), or the tool's name. */
function programOf(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const command = callArguments(call).command;
  const first = typeof command === 'string' ? command.trim().split(/\s+/)[0] : undefined;
  return `${call.name}\u0000${first ?? ''}`;
}

function isError(message: Message): boolean {
  return ERROR_OUTPUT.test(contentText(message.content).slice(0, 20_000));
}

/** What one call is, for telling when a later call supersedes it: the file it reads, or the call itself. */
function callKey(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const path = callPath(call);
  const args = callArguments(call);
  const range = ['offset', 'limit', 'view_range', 'start_line', 'end_line']
    .map((key) => JSON.stringify(args[key] ?? null))
    .join(',');
  if (path !== undefined) return `${call.name}\u0000${path}\u0000${range}`;
  return `${call.name}\u0000${primaryArgument(call) ?? call.arguments}`;
}

/** Options of {@link outputUses}. */
export interface OutputUsesOptions {
  messages: readonly Message[];
  /** Tool-call ids whose outputs a cut elided earlier (sticky), for spotting re-read loops. */
  elided?: ReadonlySet<string>;
}

/**
 * The last use of every tool output, by tool-call id: the index of the last message that used it,
 * `-1` for an output superseded by a later run of the same call, `messages.length` for one that must
 * stay (an unanswered error, the newest read in a re-read loop).
 *
 * @example
 * const uses = outputUses({ messages });
 * eligible.sort((a, b) => uses.get(idOf(a)) - uses.get(idOf(b))); // elide the least recently used first
 */
export function outputUses({ messages, elided = new Set() }: OutputUsesOptions): Map<string, number> {
  const calls = indexToolCalls(messages);
  const outputs = messages.flatMap((message, index) => (message.role === 'tool' ? [index] : []));
  // How many outputs each name appears in: names common to many say nothing of any one.
  const spread = new Map<string, number>();
  for (const index of outputs)
    for (const name of messageNames(messages[index] as Message))
      spread.set(name, (spread.get(name) ?? 0) + 1);
  const common = Math.max(2, Math.ceil(outputs.length * COMMON_SHARE));
  // The last assistant message naming each name.
  const lastNamed = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role === 'assistant') for (const name of messageNames(message)) lastNamed.set(name, index);
  });
  // The last call of each kind, and how many of each file's reads a cut elided.
  const lastCall = new Map<string, number>();
  const lastClean = new Map<string, number>();
  const cutReads = new Map<string, number>();
  for (const index of outputs) {
    const message = messages[index] as Extract<Message, { role: 'tool' }>;
    const call = calls.get(message.toolCallId)?.call;
    if (call === undefined) continue;
    lastCall.set(callKey(call), index);
    if (!isError(message)) lastClean.set(programOf(call), index);
    const path = callPath(call);
    if (path !== undefined && elided.has(message.toolCallId))
      cutReads.set(path, (cutReads.get(path) ?? 0) + 1);
  }
  const uses = new Map<string, number>();
  for (const index of outputs) {
    const message = messages[index] as Extract<Message, { role: 'tool' }>;
    const site = calls.get(message.toolCallId);
    const call = site?.call;
    const superseded = call !== undefined && (lastCall.get(callKey(call)) ?? index) > index;
    if (superseded) {
      uses.set(message.toolCallId, -1);
      continue;
    }
    const path = call === undefined ? undefined : callPath(call);
    const loop = path !== undefined && (cutReads.get(path) ?? 0) > MAX_REREADS_AFTER_CUT;
    // An error stays until the same program runs again without one.
    const error = call !== undefined && isError(message) && (lastClean.get(programOf(call)) ?? -1) < index;
    if (loop || error) {
      uses.set(message.toolCallId, messages.length);
      continue;
    }
    let last = index;
    const named = (name: string) => {
      if ((spread.get(name) ?? 0) >= common) return;
      const at = lastNamed.get(name);
      if (at !== undefined && at > last) last = at;
    };
    messageNames(message).forEach(named);
    if (site) messageNames(messages[site.index] as Message).forEach(named);
    uses.set(message.toolCallId, last);
  }
  return uses;
}
