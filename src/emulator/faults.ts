import { SpillwayError } from '../core/index.js';
import { createRandom } from './random.js';

/**
 * The faults an emulator can inject into a chat request:
 * - `stream-cut`: the reply stops halfway and the socket is destroyed (streaming and not).
 * - `invalid-tool-json`: the reply's first tool call (one is added if it has none) carries arguments
 *   that are not valid JSON, with an ordinary `tool_calls` / `tool_use` finish.
 * - `truncate`: the reply runs into the output limit (the request's `max_tokens`, else the output
 *   cap, else 4,096; at most 65,536) and ends with `finish_reason: "length"` / `"max_tokens"`.
 * - `rate-limit`: HTTP 429 with `retry-after` (seconds, `retryAfter`, default 1) and the profile's body.
 * - `server-error`: HTTP 500 (or `status`) with the profile's body.
 * - `unavailable`: HTTP 503 (529 for `anthropic`, its "overloaded" status; or `status`).
 * - `slow-first-byte`: nothing is sent for `delayMs` (default 1,000) milliseconds, then the reply.
 * - `malformed-sse`: a stream carries one `data:` line that is not JSON; a non-streaming reply is a
 *   200 whose body is cut JSON.
 */
export type FaultKind =
  | 'stream-cut'
  | 'invalid-tool-json'
  | 'truncate'
  | 'rate-limit'
  | 'server-error'
  | 'unavailable'
  | 'slow-first-byte'
  | 'malformed-sse';

/** When a fault fires: on the listed chat request numbers (1-based), or with a seeded probability. */
export interface FaultRule {
  kind: FaultKind;
  /** Chat request numbers (1 = the first POST to the chat endpoint) the fault fires on. */
  requests?: number[];
  /** Probability in [0, 1] per chat request, drawn from the emulator's seed and the request number. */
  probability?: number;
  /** `rate-limit`: the `retry-after` header, in seconds. */
  retryAfter?: number;
  /** `slow-first-byte`: the delay before anything is sent, in milliseconds. */
  delayMs?: number;
  /** `server-error` / `unavailable`: the HTTP status to send instead of the default. */
  status?: number;
}

export const FAULT_KINDS: readonly FaultKind[] = [
  'stream-cut',
  'invalid-tool-json',
  'truncate',
  'rate-limit',
  'server-error',
  'unavailable',
  'slow-first-byte',
  'malformed-sse',
];

/**
 * The fault for chat request `requestNumber`: the first rule that lists the number, or whose seeded
 * draw for this request falls under its probability. The draw depends only on the seed, the rule's
 * position and the request number, so the same run faults the same requests.
 *
 * @example
 * faultFor([{ kind: 'rate-limit', requests: [2] }], { requestNumber: 2, seed: 0 })?.kind; // 'rate-limit'
 */
export function faultFor(
  rules: readonly FaultRule[],
  { requestNumber, seed }: { requestNumber: number; seed: number },
): FaultRule | undefined {
  for (const [position, rule] of rules.entries()) {
    if (rule.requests?.includes(requestNumber)) return rule;
    if (
      rule.probability !== undefined &&
      createRandom(seed, 'fault', position, requestNumber).next() < rule.probability
    )
      return rule;
  }
  return undefined;
}

/** Checks fault rules given as JSON; fails with `invalid_config` naming the first wrong field. */
export function parseFaults(value: unknown): FaultRule[] {
  const fail = (path: string, problem: string): never => {
    throw new SpillwayError('invalid_config', `faults${path} ${problem}`, {
      data: { path: `faults${path}` },
    });
  };
  if (!Array.isArray(value)) fail('', 'must be an array of fault rules');
  const known = new Set(['kind', 'requests', 'probability', 'retryAfter', 'delayMs', 'status']);
  return (value as unknown[]).map((entry, index) => {
    const path = `[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) fail(path, 'must be an object');
    const rule = entry as Record<string, unknown>;
    for (const key of Object.keys(rule)) if (!known.has(key)) fail(`${path}.${key}`, 'is not a fault field');
    if (!FAULT_KINDS.includes(rule.kind as FaultKind))
      fail(`${path}.kind`, `must be one of ${FAULT_KINDS.join(', ')}`);
    if (
      rule.requests !== undefined &&
      (!Array.isArray(rule.requests) || rule.requests.some((n) => !Number.isInteger(n) || (n as number) < 1))
    )
      fail(`${path}.requests`, 'must be an array of request numbers >= 1');
    const probability = rule.probability;
    if (probability !== undefined && (typeof probability !== 'number' || probability < 0 || probability > 1))
      fail(`${path}.probability`, 'must be a number in [0, 1]');
    if (rule.requests === undefined && probability === undefined)
      fail(path, 'needs "requests" or "probability"');
    for (const key of ['retryAfter', 'delayMs', 'status'])
      if (rule[key] !== undefined && (!Number.isInteger(rule[key]) || (rule[key] as number) < 0))
        fail(`${path}.${key}`, 'must be an integer >= 0');
    return rule as unknown as FaultRule;
  });
}
