/**
 * @module
 * Where each normalized message came from in an AI SDK prompt, so that writing it back gives the
 * caller's own objects. Keyed by identity, like core's converters: a copy made with spread (a
 * compressed tool result, say) is written from its fields.
 */
import type { Message } from '../../core/index.js';
import type { LanguageModelMessage } from './ai-sdk-types.js';

/** One piece of an AI SDK message: tool messages split into one piece per part. */
export interface PromptSource {
  message: LanguageModelMessage;
  /** The piece's position among the pieces of `message`. */
  index: number;
  count: number;
  /** The part this piece was read from, for pieces of a split message. */
  part?: unknown;
}

const SOURCES = new WeakMap<Message, PromptSource>();

/** `extra` objects made by the reader: their fields are AI SDK fields, safe to write back as they are. */
const AI_SDK_EXTRAS = new WeakSet<object>();

export function rememberSource(message: Message, source: PromptSource): void {
  SOURCES.set(message, source);
}

export function sourceOf(message: Message): PromptSource | undefined {
  return SOURCES.get(message);
}

/**
 * The fields of `value` other than `known`, plus `added`, marked as AI SDK fields; undefined when
 * there are none.
 */
export function extraOf(
  value: object,
  known: readonly string[],
  added?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  let extra: Record<string, unknown> | undefined;
  for (const [key, field] of Object.entries(value)) {
    if (known.includes(key)) continue;
    extra ??= {};
    extra[key] = field;
  }
  if (added) extra = { ...extra, ...added };
  if (extra) AI_SDK_EXTRAS.add(extra);
  return extra;
}

/**
 * The fields of an `extra` to write into an AI SDK object: all of them when the reader made it,
 * else only `providerOptions` (extras from other wire formats mean nothing to the AI SDK).
 */
export function writableExtra(extra: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!extra) return {};
  if (AI_SDK_EXTRAS.has(extra)) return extra;
  return extra.providerOptions === undefined ? {} : { providerOptions: extra.providerOptions };
}
