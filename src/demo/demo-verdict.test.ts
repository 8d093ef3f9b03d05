import { describe, expect, it } from 'vitest';
import { demoVerdict, runVerdict } from './demo-verdict.js';
import { type DemoResult, runDemo } from './run-demo.js';
import type { DemoRequest, DemoRun } from './run-demo-session.js';

function run(name: DemoRun['name'], requests: DemoRequest[], overrides: Partial<DemoRun> = {}): DemoRun {
  return {
    name,
    reason: 'completed',
    turnsCompleted: requests.filter((request) => request.accepted).length,
    stuck: false,
    overflows: { context: 0, budget: 0, output_cap: 0 },
    recoveries: 0,
    providerCalls: requests.length,
    promptTokensMax: 0,
    promptTokensSent: requests.reduce((sum, request) => sum + request.promptTokens, 0),
    requests,
    prunes: [],
    compactions: [],
    ...overrides,
  };
}

const growing = (turns: number, maxTokens?: number): DemoRequest[] =>
  Array.from({ length: turns }, (_, index) => ({
    turn: index + 1,
    promptTokens: (index + 1) * 1_000,
    ...(maxTokens === undefined ? {} : { maxTokens }),
    accepted: true,
  }));

function resultOf(plain: DemoRun, spillway: DemoRun, realWindow = 8_000): DemoResult {
  const limits = {
    model: 'm',
    contextLength: realWindow,
    source: { contextLength: 'probed' as const, outputCap: 'probed' as const },
    figures: { contextLength: [{ value: realWindow, source: 'probed' as const }], outputCap: [] },
  };
  return {
    profile: 'vllm',
    turns: 4,
    scale: 1,
    model: 'm',
    advertised: limits,
    limits,
    learned: [],
    realWindow,
    runs: { plain, spillway },
  };
}

describe('demoVerdict', () => {
  it('calls a run that completed on prompts the server cut "completed_truncated", with the share it lost', () => {
    const requests = growing(4).map((request) =>
      request.promptTokens > 2_000 ? { ...request, keptTokens: 2_000 } : request,
    );
    const verdict = runVerdict(run('plain', requests));
    expect(verdict.outcome).toBe('completed_truncated');
    expect(verdict.truncatedRequests).toBe(2);
    expect(verdict.firstTruncatedTurn).toBe(3);
    expect(verdict.contextLostMax).toBeCloseTo(0.5);
    expect(verdict.worstTruncation?.turn).toBe(4);
    expect(verdict.finalTruncation?.turn).toBe(4);
    expect(verdict.promptTokensPerTurn).toBe(2_500);
  });

  it('calls a run that ended on a rejection "stuck" there, and prices only its completed turns', () => {
    const rejected: DemoRequest = { turn: 3, promptTokens: 9_000, maxTokens: 1_000, accepted: false };
    const verdict = runVerdict(
      run('plain', [...growing(2, 1_000), rejected], {
        stuck: true,
        stuckAt: rejected,
        reason: 'provider_error',
      }),
    );
    expect(verdict.outcome).toBe('stuck');
    expect(verdict.stuckAt).toBe(rejected);
    expect(verdict.promptTokensSent).toBe(12_000);
    expect(verdict.promptTokensPerTurn).toBe(6_000);
  });

  it('says why nothing changed when both runs sent the same requests: the largest one fit', () => {
    const verdict = demoVerdict(
      resultOf(run('plain', growing(4, 2_000)), run('spillway', growing(4, 2_000))),
    );
    expect(verdict.unchanged).toEqual({ promptTokens: 4_000, maxTokens: 2_000, window: 8_000 });
    expect(verdict.plain.outcome).toBe('completed');
  });

  it('finds a difference when the managed run cut or sent other requests', () => {
    const cut = run('spillway', growing(4, 2_000), { prunes: [{ turn: 4, droppedTurns: 1, elided: 0 }] });
    expect(demoVerdict(resultOf(run('plain', growing(4, 2_000)), cut)).unchanged).toBeUndefined();
    const clamped = run('spillway', growing(4, 1_500));
    expect(demoVerdict(resultOf(run('plain', growing(4, 2_000)), clamped)).unchanged).toBeUndefined();
  });

  it('measures what Ollama silently dropped from what the emulator counted and what it reported keeping', async () => {
    const result = await runDemo({ profile: 'ollama', turns: 8 });
    const verdict = demoVerdict(result);
    expect(verdict.plain.outcome).toBe('completed_truncated');
    const truncated = result.runs.plain.requests.filter((request) => request.keptTokens !== undefined);
    expect(truncated.length).toBe(verdict.plain.truncatedRequests);
    expect(truncated.length).toBeGreaterThan(0);
    for (const request of truncated) {
      expect(request.promptTokens).toBeGreaterThan(result.realWindow);
      expect(request.keptTokens).toBeLessThanOrEqual(result.realWindow);
    }
    const worst = verdict.plain.worstTruncation as DemoRequest;
    expect(verdict.plain.contextLostMax).toBeCloseTo(
      1 - (worst.keptTokens as number) / worst.promptTokens,
      10,
    );
    expect(verdict.spillway.outcome).toBe('completed');
    expect(verdict.spillway.truncatedRequests).toBe(0);
    expect(verdict.unchanged).toBeUndefined();
  });
});
