/**
 * @module
 * What a rejection says, gathered from whatever the caller has: a body (text, bytes, parsed JSON) or an
 * error (SDK error classes, `cause` chains). Everything is bounded: strings are capped, objects are
 * walked to a fixed depth and node count, cycles are cut.
 */
import { capScanText, SCAN_HEAD_CHARS, SCAN_TAIL_CHARS } from './scan-text.js';

/** The texts to scan and the HTTP status found on an error object, if any. */
export interface Evidence {
  texts: string[];
  status?: number;
}

/** Objects deeper than this are cut: no provider envelope nests this far. */
const MAX_DEPTH = 24;
/** Values visited per serialization: bounds a huge parsed body. */
const MAX_NODES = 5_000;
/** Errors followed along a `cause` chain. */
const MAX_CAUSES = 8;

/**
 * Fields of an error object that hold what the server said. An allowlist, because SDK errors also
 * carry the request (axios `config.data`, AI SDK `requestBodyValues`) and the prompt must never be
 * read as the error.
 */
const ERROR_FIELDS = [
  'error',
  'errors',
  'responseBody',
  'apiMessage',
  'body',
  'data',
  'detail',
  'details',
  'code',
  'type',
  'reason',
] as const;

type Bag = Record<string, unknown>;

function isObject(value: unknown): value is Bag {
  return typeof value === 'object' && value !== null;
}

/** An HTTP status in range, else `undefined`. */
export function httpStatus(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number >= 100 && number <= 599
    ? number
    : undefined;
}

function decodeBytes(bytes: Uint8Array): string {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  if (bytes.length <= SCAN_HEAD_CHARS + SCAN_TAIL_CHARS) return decoder.decode(bytes);
  return `${decoder.decode(bytes.subarray(0, SCAN_HEAD_CHARS))}\n…\n${decoder.decode(bytes.subarray(bytes.length - SCAN_TAIL_CHARS))}`;
}

/** JSON-like text of a value, bounded in depth, nodes and length; cycles print as `"[cycle]"`. */
export function serializeBounded(value: unknown): string {
  const parts: string[] = [];
  let length = 0;
  let nodes = 0;
  const seen = new Set<object>();
  const limit = SCAN_HEAD_CHARS + SCAN_TAIL_CHARS;
  const push = (part: string) => {
    parts.push(part);
    length += part.length;
  };
  const visitObject = (item: Bag, depth: number): void => {
    if (Array.isArray(item)) {
      push('[');
      item.forEach((element, index) => {
        if (index > 0) push(',');
        visit(element, depth + 1);
      });
      push(']');
      return;
    }
    const entries: Array<[string, unknown]> = [];
    if (item instanceof Error) entries.push(['name', item.name], ['message', item.message]);
    for (const key of Object.keys(item)) {
      if (key !== 'stack') entries.push([key, item[key]]);
    }
    push('{');
    entries.forEach(([key, entry], index) => {
      push(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      visit(entry, depth + 1);
    });
    push('}');
  };
  const visit = (item: unknown, depth: number): void => {
    nodes += 1;
    if (length > limit || nodes > MAX_NODES) return;
    if (typeof item === 'string') push(JSON.stringify(capScanText(item)));
    else if (typeof item === 'number' || typeof item === 'boolean') push(String(item));
    else if (!isObject(item)) push('null');
    else if (depth >= MAX_DEPTH) push('"…"');
    else if (seen.has(item)) push('"[cycle]"');
    else if (item instanceof Uint8Array) push(JSON.stringify(decodeBytes(item)));
    else {
      seen.add(item);
      visitObject(item, depth);
    }
  };
  visit(value, 0);
  return capScanText(parts.join(''));
}

function statusOf(error: Bag): number | undefined {
  const metadata = isObject(error.$metadata) ? error.$metadata : undefined;
  const response = isObject(error.response) ? error.response : undefined;
  return (
    httpStatus(error.status) ??
    httpStatus(error.statusCode) ??
    httpStatus(metadata?.httpStatusCode) ??
    httpStatus(response?.status) ??
    httpStatus(response?.statusCode)
  );
}

/** Texts and status of an error and its causes: `name: message`, then the fields that hold the body. */
function collectFromError(error: Bag, evidence: Evidence, seen: Set<object>): void {
  let current: unknown = error;
  for (let hop = 0; hop < MAX_CAUSES && isObject(current) && !seen.has(current); hop += 1) {
    seen.add(current);
    evidence.status ??= statusOf(current);
    const name = typeof current.name === 'string' ? current.name : '';
    if (typeof current.message === 'string') evidence.texts.push(capScanText(`${name}: ${current.message}`));
    for (const field of ERROR_FIELDS) {
      const value = current[field];
      if (value === undefined || value === null) continue;
      evidence.texts.push(typeof value === 'string' ? capScanText(value) : serializeBounded(value));
    }
    const response = isObject(current.response) ? current.response : undefined;
    for (const field of ['data', 'body'] as const) {
      const value = response?.[field];
      if (typeof value === 'string' || isObject(value))
        evidence.texts.push(typeof value === 'string' ? capScanText(value) : serializeBounded(value));
    }
    current = current.cause;
  }
}

function collectFrom(value: unknown, evidence: Evidence, seen: Set<object>): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string') evidence.texts.push(capScanText(value));
  else if (value instanceof Uint8Array) evidence.texts.push(decodeBytes(value));
  else if (value instanceof ArrayBuffer) evidence.texts.push(decodeBytes(new Uint8Array(value)));
  else if (value instanceof Error) collectFromError(value as unknown as Bag, evidence, seen);
  else if (isObject(value)) evidence.texts.push(serializeBounded(value));
  else evidence.texts.push(String(value));
}

/**
 * Gathers the texts of a body and an error. A body is what the server sent; an error is walked along
 * its `cause` chain for `status` / `statusCode` / `$metadata.httpStatusCode` / `response.status` and
 * for the fields SDKs keep the server's words in (`error`, `responseBody`, `body`, `data`, …), which
 * covers the openai, @anthropic-ai/sdk, AI SDK, AWS SDK and axios shapes.
 */
export function collectEvidence(body: unknown, error: unknown): Evidence {
  const evidence: Evidence = { texts: [] };
  const seen = new Set<object>();
  collectFrom(body, evidence, seen);
  if (isObject(error) && !(error instanceof Uint8Array) && !(error instanceof ArrayBuffer))
    collectFromError(error, evidence, seen);
  else collectFrom(error, evidence, seen);
  return evidence;
}
