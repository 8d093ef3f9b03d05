/**
 * @module
 * The requests a manager sent, as it remembers them: the last one (what the next usage report is
 * about) and the last one the provider counted (the anchor of the next estimate).
 */
import { hasUncountableContent } from '../budget/detect-silent-truncation.js';
import {
  addBreakdown,
  calibrationInputOf,
  type EstimateCache,
  type TokenBreakdown,
} from '../tokens/index.js';
import { type ChatRequest, digestItems, digestMessages, type Message } from '../transcript/index.js';
import { derivedFrom, startsWithSame } from '../transcript/transcript-index.js';
import type { PersistedAnchor } from './manager-state.js';
import type { Anchor } from './request-count.js';

/** A request as sent, with what the provider reported for it. */
export interface SentRequest {
  messages: readonly Message[];
  tools: ChatRequest['tools'];
  raw: number;
  /** The raw estimate as text and template overhead, for calibration. */
  split: { text: number; overhead: number };
  /** Prompt tokens the provider reported for it. */
  anchor?: number;
  model?: string;
  /** Whether every part is text a server must render (no images, documents or reasoning). */
  countable: boolean;
  hasImages: boolean;
  /** Set when this request is the previous one plus an assistant reply and tool results only. */
  extends?: { reported: number; appendedRaw: number };
}

/** A message's or tool's content as a string, computed once per object. */
const CONTENT_KEYS = new WeakMap<object, string>();
export function contentKey(item: object): string {
  let key = CONTENT_KEYS.get(item);
  if (key === undefined) {
    key = JSON.stringify(item);
    CONTENT_KEYS.set(item, key);
  }
  return key;
}

/**
 * Whether two lists hold the same items: the same objects (the tool loop's case, O(1) per item), or
 * objects with the same content (a proxy parses every request anew).
 */
export function sameItems(a: readonly object[], b: readonly object[]): boolean {
  return a.length === b.length && startsWithItems(b, a);
}

/** Whether `list` starts with the items of `prefix`, compared as {@link sameItems} compares them. */
function startsWithItems(list: readonly object[], prefix: readonly object[]): boolean {
  if (list.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) {
    const left = prefix[index] as object;
    const right = list[index] as object;
    if (left !== right && contentKey(left) !== contentKey(right)) return false;
  }
  return true;
}

/** The anchor for `request` when it extends `sent`, which the provider counted. */
export function anchorOnSent(
  sent: SentRequest | undefined,
  request: Pick<ChatRequest, 'messages' | 'tools'>,
  cache: EstimateCache,
): Anchor | undefined {
  if (sent?.anchor === undefined) return undefined;
  if (!startsWithItems(request.messages, sent.messages)) return undefined;
  const appended = cache.messages(request.messages.slice(sent.messages.length));
  if (sameItems(sent.tools, request.tools))
    return { reported: sent.anchor, appended: calibrationInputOf(appended) };
  // Another tool set (a synthesis send without tools, deferred tools loaded): the old schemas come
  // off the count and the new ones are appended, so only the schemas are estimated, not the history.
  return {
    reported: sent.anchor,
    appended: calibrationInputOf(addBreakdown(appended, cache.tools(request.tools))),
    removed: calibrationInputOf(cache.tools(sent.tools)),
  };
}

/** The anchor for `request` when it starts with the messages a restored anchor counted. */
export function anchorOnPersisted(
  anchor: PersistedAnchor,
  request: Pick<ChatRequest, 'messages' | 'tools'>,
  cache: EstimateCache,
): Anchor | undefined {
  if (!extendsPersisted(anchor, request)) return undefined;
  return {
    reported: anchor.reported,
    appended: calibrationInputOf(cache.messages(request.messages.slice(anchor.messages))),
  };
}

/** Whether `request` starts with the messages, and carries the tools, a restored anchor counted. */
function extendsPersisted(
  anchor: PersistedAnchor,
  request: Pick<ChatRequest, 'messages' | 'tools'>,
): boolean {
  return (
    request.messages.length >= anchor.messages &&
    digestItems(request.tools) === anchor.tools &&
    prefixDigest(request.messages, anchor.messages) === anchor.digest
  );
}

/** The last prefix digested: a fit asks it of the same history for every candidate it counts. */
let lastPrefix: { messages: readonly Message[]; digest: string } | undefined;

function prefixDigest(messages: readonly Message[], count: number): string {
  const last = lastPrefix;
  if (last !== undefined && last.messages.length === count && startsWithSame(messages, last.messages))
    return last.digest;
  const prefix = messages.slice(0, count);
  const digest = digestMessages(prefix);
  lastPrefix = { messages: prefix, digest };
  return digest;
}

/** Anchors already made of a sent request, with the count they were made for (it may change). */
const PERSISTED = new WeakMap<SentRequest, PersistedAnchor>();

/** A counted request as digests, to persist; made once per request and count. */
export function persistAnchor(sent: SentRequest): PersistedAnchor | undefined {
  if (sent.anchor === undefined) return undefined;
  const known = PERSISTED.get(sent);
  if (known !== undefined && known.reported === sent.anchor) return known;
  const anchor: PersistedAnchor = {
    messages: sent.messages.length,
    digest: digestMessages(sent.messages),
    tools: digestItems(sent.tools),
    reported: sent.anchor,
  };
  PERSISTED.set(sent, anchor);
  return anchor;
}

/**
 * What a request adds to the previous one, for silent-truncation detection: set only when it appends
 * an assistant reply and tool results (a new user message may make templates drop earlier reasoning).
 */
export function extension(
  reported: number,
  appended: readonly Message[],
  cache: EstimateCache,
): { reported: number; appendedRaw: number } | undefined {
  let appendedRaw = 0;
  for (const message of appended) {
    if (message.role === 'user' || message.role === 'system') return undefined;
    if (message.role === 'tool' && !hasUncountableContent([message]).uncountable)
      appendedRaw += cache.message(message).total;
  }
  return { reported, appendedRaw };
}

/**
 * What `request` appended to the counted request it extends: the previous one this manager sent and
 * had counted, else (none counted yet) a restored anchor.
 */
function extensionOfCounted(
  request: Pick<ChatRequest, 'messages' | 'tools'>,
  {
    previous,
    persisted,
    cache,
  }: { previous?: SentRequest; persisted?: PersistedAnchor; cache: EstimateCache },
): ReturnType<typeof extension> {
  if (previous?.anchor !== undefined) {
    if (!startsWithItems(request.messages, previous.messages)) return undefined;
    return extension(previous.anchor, request.messages.slice(previous.messages.length), cache);
  }
  if (persisted === undefined || !extendsPersisted(persisted, request)) return undefined;
  return extension(persisted.reported, request.messages.slice(persisted.messages), cache);
}

/** What {@link hasUncountableContent} finds. */
type ContentKinds = ReturnType<typeof hasUncountableContent>;
const CONTENT_KINDS = Symbol('contentKinds');

/**
 * {@link hasUncountableContent} of `messages`, kept with their walk: a history sent again is looked
 * at only from where it grew.
 */
function contentKinds(messages: readonly Message[]): ContentKinds {
  return derivedFrom<ContentKinds>(messages, 'sentRequest', CONTENT_KINDS, (previous) => {
    if (previous === undefined) return hasUncountableContent(messages);
    if (previous.value.images || previous.length === messages.length) return previous.value;
    const added = hasUncountableContent(messages.slice(previous.length));
    return { uncountable: previous.value.uncountable || added.uncountable, images: added.images };
  }) as ContentKinds;
}

/** A request recorded as sent. */
export function sentRequest(
  request: Pick<ChatRequest, 'messages' | 'tools'>,
  {
    breakdown,
    model,
    previous,
    cache,
    persisted,
  }: {
    breakdown: TokenBreakdown;
    model: string | undefined;
    previous?: SentRequest;
    /** A restored anchor, when no request of this manager's own was counted (a proxy's next request). */
    persisted?: PersistedAnchor;
    cache: EstimateCache;
  },
): SentRequest {
  const content = contentKinds(request.messages);
  const extended = extensionOfCounted(request, { previous, persisted, cache });
  return {
    messages: request.messages.slice(),
    tools: request.tools.slice(),
    raw: breakdown.total,
    split: calibrationInputOf(breakdown),
    ...(model === undefined ? {} : { model }),
    countable: !content.uncountable,
    hasImages: content.images,
    ...(extended ? { extends: extended } : {}),
  };
}
