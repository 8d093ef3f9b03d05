/**
 * @module
 * What each tool result is about: the call it answers, a short description of that call
 * (`read_file src/app.ts`), and which read results a later edit of the same path made stale.
 */
import { type CallDeclaration, indexTranscript, type Message, type ToolCall } from '../transcript/index.js';

/** Argument keys that name what a call works on, in the order they are preferred for a description. */
const PRIMARY_KEYS = [
  'path',
  'file_path',
  'filePath',
  'file',
  'filename',
  'target_file',
  'notebook_path',
  'command',
  'cmd',
  'query',
  'pattern',
  'url',
  'uri',
  'name',
  'id',
] as const;

const PATH_KEYS = ['path', 'file_path', 'filePath', 'file', 'filename', 'target_file', 'notebook_path'];

/** Tool names that read a file, and names that change one (matched case-insensitively). */
const READ_TOOL = /(^|[^a-z])(read|cat|view|open|get_?file|show)/i;
const EDIT_TOOL = /(edit|write|patch|replace|create|apply|insert|delete|remove|move|rename|append)/i;

/** The longest argument quoted in a description. */
const MAX_ARGUMENT_CHARS = 80;

/** A tool call's arguments as an object; `{}` when they are not a JSON object. */
export function callArguments(call: Pick<ToolCall, 'arguments'>): Record<string, unknown> {
  try {
    const parsed = JSON.parse(call.arguments) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The argument that says what a call works on (a path, a command, a query), cut short. */
export function primaryArgument(call: Pick<ToolCall, 'arguments'>): string | undefined {
  const args = callArguments(call);
  for (const key of PRIMARY_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return shorten(oneLine(value));
  }
  return undefined;
}

/** `read_file src/app.ts`, or the bare name when no argument says what the call was about. */
export function describeToolCall(call: Pick<ToolCall, 'name' | 'arguments'>): string {
  const argument = primaryArgument(call);
  return argument === undefined ? call.name : `${call.name} ${argument}`;
}

/** The path a call reads or edits, if its arguments name one. */
export function callPath(call: Pick<ToolCall, 'arguments'>): string | undefined {
  const args = callArguments(call);
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

function isReadCall(call: ToolCall): boolean {
  const command = callArguments(call).command;
  if (command === 'view' || command === 'read') return true;
  return READ_TOOL.test(call.name) && !EDIT_TOOL.test(call.name);
}

function isEditCall(call: ToolCall): boolean {
  const command = callArguments(call).command;
  if (command === 'view' || command === 'read') return false;
  return EDIT_TOOL.test(call.name);
}

/**
 * The call each tool-call id belongs to, with the index of the assistant message declaring it (the
 * transcript walk's, shared by every pass of a send and extended as the history grows).
 */
export function indexToolCalls(messages: readonly Message[]): ReadonlyMap<string, CallDeclaration> {
  return indexTranscript(messages, 'indexToolCalls').calls;
}

/**
 * Tool-call ids of read results that a later call edited the same path after: what the model read
 * is no longer what the file holds, so the result is the first to stub under pressure.
 */
export function staleReads(messages: readonly Message[]): Set<string> {
  const stale = new Set<string>();
  const reads = new Map<string, string[]>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) {
      const path = callPath(call);
      if (path === undefined) continue;
      if (isEditCall(call)) {
        for (const id of reads.get(path) ?? []) stale.add(id);
        reads.delete(path);
      } else if (isReadCall(call)) {
        const list = reads.get(path) ?? [];
        list.push(call.id);
        reads.set(path, list);
      }
    }
  }
  return stale;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function shorten(text: string): string {
  return text.length <= MAX_ARGUMENT_CHARS ? text : `${text.slice(0, MAX_ARGUMENT_CHARS - 1)}…`;
}
