/**
 * @module
 * One walk over a message list, shared by everything a send asks of it: the input check, the turn
 * of each message, the tool calls by id, the first result of each call, and the pairing check. A
 * send asks several of these of the same history, and the next send's history is the same messages
 * with a turn appended: the walk is kept and extended over the appended messages only. A list is
 * matched to a kept walk by comparing its messages with the walked ones by identity (a few
 * nanoseconds a message), once per fit ({@link withListsUnchanged}); a list that differs anywhere is
 * walked afresh.
 */
import { SpillwayError } from '../errors/index.js';
import { messageProblem } from './message-problem.js';
import type { Message, ToolCall } from './types.js';

/** A tool call's declaration: the call and the index of the assistant message that makes it. */
export interface CallDeclaration {
  call: ToolCall;
  index: number;
}

/** A pairing problem found while walking, before the whole list is known. */
export interface WalkedIssue {
  kind:
    | 'empty_id'
    | 'duplicate_call_id'
    | 'duplicate_result'
    | 'result_in_later_turn'
    /** A result with no earlier call: orphan, or before its call when one comes later. */
    | 'unmatched_result';
  messageIndex: number;
  toolCallId: string;
  /** For `empty_id` on a call: its name; for `result_in_later_turn` and `duplicate_call_id`: the call's message. */
  name?: string;
  other?: number;
}

/** A call the pairing check has seen, and whether a result answered it. */
interface CallSite {
  messageIndex: number;
  turn: number;
  answered: boolean;
}

/** What the walk knows of a message list; extended in place while the list only grows. */
export interface TranscriptIndex {
  /** The walked messages. */
  readonly messages: readonly Message[];
  /** Index of the first user message, -1 while there is none (the head runs on to the first assistant message after it). */
  readonly firstUser: number;
  /** Turn of each message: -1 in the head, 0… after it (each assistant message opens a turn). */
  readonly turnOf: readonly number[];
  /** Tool calls by id, first declaration only. */
  readonly calls: ReadonlyMap<string, CallDeclaration>;
  /** The index of the first tool result answering each id. */
  readonly results: ReadonlyMap<string, number>;
  /** Pairing problems found so far, in walk order (calls never answered are not among them). */
  readonly issues: readonly WalkedIssue[];
  /** Calls with a non-empty, unique id that no result has answered yet, in declaration order. */
  readonly unanswered: ReadonlyMap<string, CallSite>;
  /**
   * What passes derived from the walked messages, kept with the walk by whatever key a pass chooses
   * (see {@link derivedFrom}): the walk only grows, so what was derived from its first messages
   * still holds for them, and a later send extends it over what was appended.
   */
  readonly derived: Map<unknown, unknown>;
}

interface Walk {
  messages: Message[];
  firstUser: number;
  turnOf: number[];
  turn: number;
  calls: Map<string, CallDeclaration>;
  results: Map<string, number>;
  issues: WalkedIssue[];
  /** The pairing check's calls: non-empty ids, first declaration. */
  sites: Map<string, CallSite>;
  unanswered: Map<string, CallSite>;
  derived: Map<unknown, unknown>;
}

/** Walks kept for the next lists, most recently used last. */
const KEPT: Walk[] = [];
const MAX_KEPT = 8;
/**
 * Shorter lists are not kept among them: cheap to walk, and they would push out long ones. The last
 * short list walked is kept on its own, for the other questions its send asks of it.
 */
const MIN_KEPT_LENGTH = 32;
let lastShort: Walk | undefined;

/**
 * Message objects already found well-formed: a loop passes the same objects on every send, so each is
 * checked once, not once per send (estimates are cached per message object on the same terms).
 */
const CHECKED = new WeakSet<object>();

function emptyWalk(): Walk {
  return {
    messages: [],
    firstUser: -1,
    turnOf: [],
    turn: -1,
    calls: new Map(),
    results: new Map(),
    issues: [],
    sites: new Map(),
    unanswered: new Map(),
    derived: new Map(),
  };
}

/** Whether `list` starts with every item of `prefix`: the same objects, in the same places. */
export function startsWithSame<T>(list: readonly T[], prefix: readonly T[]): boolean {
  if (list.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (list[index] !== prefix[index]) return false;
  return true;
}

/** Whether `messages` starts with every message `walk` holds (its ends compared first). */
function extendsWalk(messages: readonly Message[], walk: Walk): boolean {
  const walked = walk.messages;
  const length = walked.length;
  if (length > 0 && (messages[length - 1] !== walked[length - 1] || messages[0] !== walked[0])) return false;
  return startsWithSame(messages, walked);
}

function walkCall(walk: Walk, call: ToolCall, index: number): void {
  if (!walk.calls.has(call.id)) walk.calls.set(call.id, { call, index });
  if (call.id === '') {
    walk.issues.push({ kind: 'empty_id', messageIndex: index, toolCallId: '', name: call.name });
    return;
  }
  const earlier = walk.sites.get(call.id);
  if (earlier) {
    walk.issues.push({
      kind: 'duplicate_call_id',
      messageIndex: index,
      toolCallId: call.id,
      other: earlier.messageIndex,
    });
    return;
  }
  const site: CallSite = { messageIndex: index, turn: walk.turn, answered: false };
  walk.sites.set(call.id, site);
  walk.unanswered.set(call.id, site);
}

function walkResult(walk: Walk, id: string, index: number): void {
  if (!walk.results.has(id)) walk.results.set(id, index);
  if (id === '') {
    walk.issues.push({ kind: 'empty_id', messageIndex: index, toolCallId: '' });
    return;
  }
  const site = walk.sites.get(id);
  if (!site) {
    walk.issues.push({ kind: 'unmatched_result', messageIndex: index, toolCallId: id });
    return;
  }
  if (site.answered) {
    walk.issues.push({ kind: 'duplicate_result', messageIndex: index, toolCallId: id });
    return;
  }
  site.answered = true;
  walk.unanswered.delete(id);
  if (site.turn !== walk.turn)
    walk.issues.push({
      kind: 'result_in_later_turn',
      messageIndex: index,
      toolCallId: id,
      other: site.messageIndex,
    });
}

/** Walks `messages` from where `walk` stopped; throws at the first message that is not one. */
function extend(walk: Walk, messages: readonly Message[], call: string): void {
  for (let index = walk.messages.length; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (typeof message !== 'object' || message === null || !CHECKED.has(message)) {
      const problem = messageProblem(message, index);
      if (problem !== undefined)
        throw new SpillwayError('invalid_transcript', `${call}: ${problem}`, {
          data: { messageIndex: index },
        });
      CHECKED.add(message);
    }
    // The head runs to the first assistant message after the first user message (as `splitTurns`).
    if (walk.firstUser === -1) {
      if (message.role === 'user') walk.firstUser = index;
    } else if (message.role === 'assistant') walk.turn += 1;
    walk.turnOf.push(walk.turn);
    if (message.role === 'assistant')
      for (const toolCall of message.toolCalls ?? []) walkCall(walk, toolCall, index);
    else if (message.role === 'tool') walkResult(walk, message.toolCallId, index);
    walk.messages.push(message);
  }
}

/**
 * The walk of `messages`: a kept one when `messages` is the list it walked or that list with
 * messages appended (then only those are walked), else a new one. Throws `invalid_transcript` at the
 * first entry that is not a normalized message, as {@link requireMessages} does.
 *
 * @example
 * const index = indexTranscript(request.messages, 'fit');
 * index.calls.get('call_7')?.index; // the assistant message that made the call
 */
export function indexTranscript(messages: readonly Message[], call: string): TranscriptIndex {
  const known = matched?.get(messages);
  if (known !== undefined && known.messages.length === messages.length) return known;
  const walk = walkOf(messages, call);
  matched?.set(messages, walk);
  return walk;
}

/**
 * Lists matched to their walk during {@link withListsUnchanged}: asked again, a list is not compared
 * again. Undefined outside it.
 */
let matched: Map<readonly Message[], Walk> | undefined;

/**
 * Runs `run`, in which the message lists it reads are not changed (one `fit`: Spillway changes no
 * list it is given, and builds its own): a list whose walk was found is not compared with it again
 * when another step asks (a send asks a dozen things of the same history). A list that grew meanwhile
 * is compared as always.
 *
 * @example
 * const result = withListsUnchanged(() => fitRequest(core, request));
 */
export function withListsUnchanged<T>(run: () => T): T {
  if (matched !== undefined) return run();
  matched = new Map();
  try {
    return run();
  } finally {
    matched = undefined;
  }
}

/** The walk of `messages`: a kept one it extends, else a new one (see {@link indexTranscript}). */
function walkOf(messages: readonly Message[], call: string): Walk {
  for (let at = KEPT.length - 1; at >= 0; at--) {
    const walk = KEPT[at] as Walk;
    if (!extendsWalk(messages, walk)) continue;
    if (at !== KEPT.length - 1) {
      KEPT.splice(at, 1);
      KEPT.push(walk);
    }
    extend(walk, messages, call);
    return walk;
  }
  const short = lastShort !== undefined && extendsWalk(messages, lastShort) ? lastShort : undefined;
  const walk = short ?? emptyWalk();
  extend(walk, messages, call);
  if (messages.length >= MIN_KEPT_LENGTH) {
    if (walk === lastShort) lastShort = undefined;
    KEPT.push(walk);
    if (KEPT.length > MAX_KEPT) KEPT.shift();
  } else lastShort = walk;
  return walk;
}

/** A value derived from the first `length` messages of a walk. */
export interface Derived<T> {
  length: number;
  value: T;
}

/**
 * A value derived from `messages`, extended from what was derived from their first messages before
 * (kept with their walk under `key`): `extend(previous, index)` gets the earlier value and how many
 * messages it covers (undefined when there is none; it may cover them all), and the walk of
 * `messages` (see {@link indexTranscript}), and returns the value for all of `messages`, or
 * undefined to keep nothing. The earlier messages are the same objects
 * (the walk compared them), so a pass whose result for a message depends only on the messages up to
 * it may start where it stopped. `extend` must not change the earlier value in place: another list
 * of the same walk may still be handed it.
 *
 * @example
 * const sums = derivedFrom(messages, 'sums', KEY, (previous) => sumFrom(messages, previous));
 */
export function derivedFrom<T>(
  messages: readonly Message[],
  call: string,
  key: unknown,
  extend: (previous: Derived<T> | undefined, index: TranscriptIndex) => T | undefined,
): T | undefined {
  const index = indexTranscript(messages, call);
  const { derived } = index;
  const previous = derived.get(key) as Derived<T> | undefined;
  const value = extend(
    previous !== undefined && previous.length <= messages.length ? previous : undefined,
    index,
  );
  if (value === undefined) derived.delete(key);
  else derived.set(key, { length: messages.length, value });
  return value;
}
