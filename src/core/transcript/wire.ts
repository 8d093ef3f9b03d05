import { SpillwayError } from '../errors/index.js';
import { ContentMemo } from './content-memo.js';
import {
  isDepthChecked,
  isRecord,
  jsonTextDepthExcess,
  MAX_JSON_DEPTH,
  tooDeepMessage,
  valueDepthExceeds,
} from './json-depth.js';
import { isJsonBody, readJsonText } from './json-text-memo.js';
import type { ContentPart, Extra, Message, ToolDefinition } from './types.js';

/**
 * Where a normalized message or tool was read from: the format and its wire object, held as `value`,
 * or, when it was read as an item of a list ({@link readItems}), found through that item's read: the
 * item the read was last handed out for, or its element `at`.
 */
interface Original {
  format: string;
  value: unknown;
  read?: { input: unknown };
  at?: string | number;
}

/**
 * Wire objects each normalized message or tool was read from. A message object found here is exactly
 * what the converter produced, so writing it back in the same format can emit the original bytes.
 * Keyed by identity: a copy made with spread is a new object and is written from its fields. A
 * normalized object keeps its record for a format; a record made while reading an item of a list
 * (see {@link readItems}) finds its wire object through that item's read, so a later read of an equal
 * item hands the read out for it (one assignment) without looking the record up.
 */
const ORIGINALS = new WeakMap<object, Original>();

export function rememberOriginal(normalized: object, format: string, value: unknown): void {
  let original = ORIGINALS.get(normalized);
  if (original !== undefined && original.format === format) {
    original.value = value;
    original.read = undefined;
  } else {
    original = { format, value };
    ORIGINALS.set(normalized, original);
  }
  capturing?.push({ original, value });
}

/** The originals a read is recording (see {@link readItems}), while it runs. */
let capturing: Array<{ original: Original; value: unknown }> | undefined;

export function originalOf(normalized: object, format: string): unknown {
  const entry = ORIGINALS.get(normalized);
  if (entry === undefined || entry.format !== format) return undefined;
  if (entry.read === undefined) return entry.value;
  const { input } = entry.read;
  return entry.at === undefined ? input : (input as Record<string | number, unknown>)[entry.at];
}

export { isRecord };

/** The fields of `value` other than `known`, or undefined when there are none. */
export function extraFields(value: Record<string, unknown>, known: readonly string[]): Extra | undefined {
  let extra: Extra | undefined;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    extra ??= {};
    extra[key] = value[key];
  }
  return extra;
}

export function invalid(message: string, data: Record<string, unknown> = {}): SpillwayError {
  return new SpillwayError('invalid_transcript', message, { data });
}

/**
 * Reads a request body that may be JSON text or an already parsed value. Nesting deeper than
 * `MAX_JSON_DEPTH` is refused before it is parsed or converted.
 */
export function readBody(
  body: unknown,
  what: string,
  { itemsChecked = false } = {},
): Record<string, unknown> {
  const value = readObjectBody(body, what, 'a "messages" array', itemsChecked ? 'messages' : undefined);
  if (!Array.isArray(value.messages))
    throw invalid(`${what} has no "messages" array; add the conversation as "messages"`);
  return value;
}

/**
 * Reads a request body (JSON text, its UTF-8 bytes, or a parsed value) that must be a JSON object;
 * `needs` names what the object must hold, for the message. Nesting deeper than `MAX_JSON_DEPTH` is
 * refused first, except inside the items of the array field `itemsOf`, which the caller checks as it
 * reads them (each at most `MAX_JSON_DEPTH - 2` levels: the body and the array are the first two).
 */
export function readObjectBody(
  body: unknown,
  what: string,
  needs: string,
  itemsOf?: string,
): Record<string, unknown> {
  let value = body;
  if (isJsonBody(body)) {
    const read = readJsonText(body);
    if (read.kind === 'too_deep')
      throw invalid(tooDeepMessage(what), { offset: read.excess.offset, maxDepth: read.excess.maxDepth });
    if (read.kind === 'not_json')
      throw invalid(`${what} is not valid JSON (${read.error.message}); send a JSON object`);
    value = read.value;
  } else if (!isDepthChecked(body) && valueDepthExceeds(withoutItems(body, itemsOf)))
    throw invalid(tooDeepMessage(what), { maxDepth: MAX_JSON_DEPTH });
  if (!isRecord(value)) throw invalid(`${what} must be a JSON object with ${needs}`);
  return value;
}

/** `body` with the items of its array field `field` left out, for a depth check of the rest. */
function withoutItems(body: unknown, field: string | undefined): unknown {
  if (field === undefined || !isRecord(body) || !Array.isArray(body[field])) return body;
  return { ...body, [field]: [] };
}

/** Levels a message of a body may nest: the body and its array of messages are the first two. */
export const MAX_ITEM_DEPTH = MAX_JSON_DEPTH - 2;

/**
 * What reading one item made, and the item it was last handed out for: an item found again by
 * content is the caller's own object this time, and what is written back unchanged must be the
 * caller's own. The originals of what the read made are found through `input` (the item itself, or
 * one of its elements), so handing the read out for another item is one assignment.
 */
export interface ItemRead<V> {
  value: V;
  input: unknown;
}

function readCapturing<V>(item: unknown, read: () => V): ItemRead<V> {
  const outer = capturing;
  const recorded: NonNullable<typeof capturing> = [];
  capturing = recorded;
  let value: V;
  try {
    value = read();
  } finally {
    capturing = outer;
  }
  const itemRead: ItemRead<V> = { value, input: item };
  for (const { original, value: wire } of recorded) {
    let at: string | number | undefined;
    if (wire !== item) {
      if (Array.isArray(item)) at = item.indexOf(wire);
      else if (isRecord(item)) at = Object.keys(item).find((key) => item[key] === wire);
      if (at === undefined || at === -1) continue;
    }
    original.read = itemRead;
    original.at = at;
  }
  return itemRead;
}

/** Hands an item's read out for `item`, the caller's object of this request (see {@link ItemRead}). */
function reattach<V>(read: ItemRead<V>, item: unknown): void {
  read.input = item;
}

/**
 * Reads every item of a body's array (messages, input items) with `read`, or finds what an equal item
 * was read into before (`memo`): a client resends its whole history with every request, and an item
 * read once is not read, checked or counted again. Each item is checked for nesting here, at most
 * `maxDepth` levels ({@link MAX_ITEM_DEPTH} by default: the body's own check,
 * `readBody(…, { itemsChecked: true })`, left the items out).
 */
export function readItems<V>(
  memo: ContentMemo<ItemRead<V>>,
  items: readonly unknown[],
  what: string,
  read: (item: unknown, index: number) => V,
  maxDepth = MAX_ITEM_DEPTH,
): V[] {
  const tooDeep = () => invalid(tooDeepMessage(what), { maxDepth: MAX_JSON_DEPTH });
  return memo.readList(
    items,
    { maxDepth, tooDeep },
    (item, index) => readCapturing(item, () => read(item, index)),
    reattach,
    valueOfRead,
  );
}

const valueOfRead = <V>(read: ItemRead<V>): V => read.value;

/** A JSON text for tool-call arguments given as an object (Anthropic `input`). */
export function argumentsText(input: unknown): string {
  return input === undefined ? '{}' : JSON.stringify(input);
}

/**
 * Parses tool-call arguments for a wire format that needs an object; keeps invalid JSON, and JSON
 * nested too deep to write back, as a string.
 */
export function argumentsValue(text: string): unknown {
  if (text.trim() === '') return {};
  if (jsonTextDepthExcess(text) !== undefined) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Request fields both wire formats share, the only ones carried across a format change. */
const PORTABLE_FIELDS = ['temperature', 'top_p', 'stream', 'metadata'];

export function portableFields(extra: Extra): Extra {
  const out: Extra = {};
  for (const key of PORTABLE_FIELDS) if (extra[key] !== undefined) out[key] = extra[key];
  return out;
}

/**
 * A copy of a message without the fields that only mean something in the format it was read from:
 * unknown fields and wire hints are format-specific and would be invalid in the other one.
 */
export function withoutExtras(message: Message): Message {
  const stripPart = (part: ContentPart): ContentPart =>
    part.type === 'text' || part.type === 'reasoning' ? { type: part.type, text: part.text } : part;
  const content = typeof message.content === 'string' ? message.content : message.content.map(stripPart);
  switch (message.role) {
    case 'assistant':
      return message.toolCalls
        ? {
            role: 'assistant',
            content,
            toolCalls: message.toolCalls.map(({ id, name, arguments: args }) => ({
              id,
              name,
              arguments: args,
            })),
          }
        : { role: 'assistant', content };
    case 'tool':
      return message.isError
        ? { role: 'tool', toolCallId: message.toolCallId, content, isError: true }
        : { role: 'tool', toolCallId: message.toolCallId, content };
    default:
      return { role: message.role, content };
  }
}

/** Where a wire format keeps a tool's name, description and JSON Schema. */
export interface ToolFields {
  name: unknown;
  description?: unknown;
  parameters?: unknown;
}

/**
 * Reads a request's `tools`, each through `fields` (the format's shape); `unnamed` says what a tool
 * without a name should look like. Every wire object is remembered, so an unchanged tool is written
 * back as it came.
 */
export function readToolList(
  value: unknown,
  format: string,
  fields: (tool: Record<string, unknown>) => ToolFields,
  unnamed: (index: number) => string,
): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('"tools" must be an array of tool definitions');
  let memo = TOOL_DEFINITIONS.get(format);
  if (memo === undefined) {
    memo = new ContentMemo<ItemRead<ToolDefinition>>({ maxEntries: 4_096 });
    TOOL_DEFINITIONS.set(format, memo);
  }
  // The body's depth check covered the tools; each is at most two levels below the body.
  return readItems(memo, value, 'the tool list', (tool, index): ToolDefinition => {
    if (!isRecord(tool)) throw invalid(`tool ${index} is not an object`);
    const { name, description, parameters } = fields(tool);
    if (typeof name !== 'string') throw invalid(unnamed(index));
    const definition: ToolDefinition = { name };
    if (typeof description === 'string') definition.description = description;
    if (parameters !== undefined) definition.parameters = parameters;
    rememberOriginal(definition, format, tool);
    return definition;
  });
}

/** Tool definitions read before, by wire format, found again by content. */
const TOOL_DEFINITIONS = new Map<string, ContentMemo<ItemRead<ToolDefinition>>>();
