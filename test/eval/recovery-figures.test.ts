/**
 * The recovery matrix's accounting on recorded requests made up for each rule: what counts as a
 * completed turn, what a silent truncation is, where summary calls go, what is cached.
 */
import { describe, expect, it } from 'vitest';
import { sameRequests, strategyFigures } from '../../eval/recovery/aggregate.js';
import { BASELINE_SUMMARY_MARKER } from '../../eval/recovery/baselines/summary-request.js';
import {
  prefixPairs,
  priced,
  sessionFigures,
  windowUseAfterFirstCut,
} from '../../eval/recovery/session-figures.js';
import type { EmulatorRequestRecord } from '../../src/emulator/index.js';

const message = (text: string) => ({ role: 'user', content: text });

/** A processed chat request whose body holds `messages`, counted `tokens`, answered with reply `reply`. */
function record(
  messages: unknown[],
  {
    tokens = 1_000,
    reported = tokens,
    reply,
    status = 200,
  }: { tokens?: number; reported?: number; reply?: number; status?: number } = {},
): EmulatorRequestRecord {
  return {
    number: 0,
    chatNumber: 0,
    method: 'POST',
    path: '/v1/chat/completions',
    body: { messages, tools: [] },
    bytes: 0,
    status,
    promptTokens: tokens,
    ...(status === 200 ? { reportedPromptTokens: reported } : {}),
    ...(reply === undefined ? {} : { replyIndex: reply }),
  };
}

/** Cached tokens: 100 a shared message. */
const prefixTokens = (_body: unknown, messages: number) => 100 * messages;

function figures(requests: EmulatorRequestRecord[], loopCompleted = true) {
  return sessionFigures({
    scenario: 's',
    strategy: 'x',
    loopCompleted,
    requests,
    enforced: 10_000,
    prefixTokens,
  });
}

describe('sessionFigures', () => {
  it('counts a silently truncated request as a failure, never as a turn, and the session as not completed', () => {
    const a = message('a');
    const session = figures([
      record([a], { reply: 0 }),
      record([a, message('b')], { tokens: 9_000, reported: 4_096, reply: 1 }),
    ]);
    expect(session.silentlyTruncated).toBe(1);
    expect(session.turns).toHaveLength(1);
    expect(session.completed).toBe(false);
    // Its cost is not lost: it waits for the next completed turn, here none.
    expect(session.trailing.uncached).toBe(4_096);
  });

  it('counts a truncated request whose turn was resent as a failure, but not as a reply the agent used', () => {
    const a = message('a');
    const b = message('b');
    const session = figures([
      record([a], { reply: 0 }),
      record([a, message('long'), b], { tokens: 9_000, reported: 4_096, reply: 1 }),
      // The same newest message again, fitted to the window the report showed: the reply was discarded.
      record([a, b], { tokens: 3_000, reply: 1 }),
    ]);
    expect(session.silentlyTruncated).toBe(1);
    expect(session.truncatedUsed).toBe(0);
    expect(session.turns).toHaveLength(2);
    expect(session.completed).toBe(true);
    // A truncated reply the agent went on with still fails the session.
    const used = figures([
      record([a], { reply: 0 }),
      record([a, message('long'), b], { tokens: 9_000, reported: 4_096, reply: 1 }),
      record([a, message('long'), b, message('c')], { tokens: 9_500, reported: 9_500, reply: 2 }),
    ]);
    expect(used.truncatedUsed).toBe(1);
    expect(used.completed).toBe(false);
  });

  it('reports summary calls apart and charges them to the next completed turn', () => {
    const a = message('a');
    const summary = record([message(`${BASELINE_SUMMARY_MARKER} summarize`)], { tokens: 500 });
    const session = figures([
      record([a], { reply: 0 }),
      summary,
      record([message('summary'), message('c')], { reply: 1 }),
    ]);
    expect(session.summaryCalls).toBe(1);
    expect(session.ordinaryRequests).toBe(2);
    expect(session.turns).toHaveLength(2);
    expect(session.turns[1]?.summaryUncached).toBe(500);
    expect(session.turns[1]?.keptPrefix).toBe(false);
  });

  it('counts a request whose reply repeats an earlier step as no turn', () => {
    const a = message('a');
    const session = figures([
      record([a], { reply: 0 }),
      record([a], { reply: 0 }),
      record([a, message('b')], { reply: 1 }),
    ]);
    expect(session.turns).toHaveLength(2);
    // The repeated request's cost goes to the turn that moved on: 900 + 900 uncached, 100 + 100 cached.
    expect(session.turns[1]).toMatchObject({ uncached: 1_800, cached: 200 });
  });

  it('serves the shared leading messages from the cache and the rest uncached', () => {
    const a = message('a');
    const b = message('b');
    const session = figures([record([a], { reply: 0 }), record([a, b], { tokens: 2_000, reply: 1 })]);
    expect(session.turns[1]).toMatchObject({ cached: 100, uncached: 1_900, keptPrefix: true });
    expect(priced(session.turns[1] as { uncached: number; cached: number })).toBeCloseTo(1_910);
  });

  it('counts rejections and leaves them out of the cost', () => {
    const session = figures([
      record([message('a')], { reply: 0 }),
      record([message('a'), message('b')], { status: 400 }),
    ]);
    expect(session.rejected).toBe(1);
    expect(session.turns).toHaveLength(1);
    expect(session.trailing).toEqual({ uncached: 0, cached: 0 });
  });
});

describe('prefix retention and window use', () => {
  it('gives a session with one turn no pair, so it scores no retention at all', () => {
    const session = figures([record([message('a')], { reply: 0 })]);
    expect(prefixPairs(session.turns)).toEqual({ pairs: 0, kept: 0 });
    expect(strategyFigures('x', 'x', [session]).prefix_retention.share).toBeNull();
  });

  it('measures window use from the first cut on, not over the ramp before it', () => {
    const a = message('a');
    const session = figures([
      record([a], { tokens: 1_000, reply: 0 }),
      record([a, message('b')], { tokens: 8_000, reply: 1 }),
      record([message('cut'), message('c')], { tokens: 6_000, reply: 2 }),
    ]);
    expect(windowUseAfterFirstCut(session.turns)).toEqual([0.6]);
  });
});

describe('sameRequests', () => {
  it('compares each scenario on the first k completed turns of both, k the fewer', () => {
    const a = message('a');
    const short = figures(
      [record([a], { tokens: 1_000, reply: 0 }), record([a, message('b')], { tokens: 2_000, reply: 1 })],
      false,
    );
    const long = figures([
      record([a], { tokens: 1_000, reply: 0 }),
      record([message('cut'), message('b')], { tokens: 1_500, reply: 1 }),
      record([message('cut'), message('b'), message('c')], { tokens: 9_000, reply: 2 }),
    ]);
    const compared = sameRequests('x', [short], [long]);
    expect(compared.turns).toBe(2);
    expect(compared.prefix_retention).toEqual({ strategy: 1, spillway: 0 });
    expect(compared.spillway_retains_less_in).toEqual(['s']);
  });
});
