/**
 * @module
 * A run's state between sends: everything needed to suspend it after a turn and resume it later, in
 * another process, with the same result as a run that never stopped. Plain JSON.
 */
import { type DriverState, type Message, SpillwayError } from '../core/index.js';

/** Usage added up over a run. */
export interface UsageTotals {
  promptTokens: number;
  completionTokens: number;
  providerCalls: number;
}

/** A suspended run. */
export interface LoopState {
  version: 1;
  /** The whole history, compactions applied. */
  messages: Message[];
  /** Iterations done (assistant turns taken). */
  iterations: number;
  usage: UsageTotals;
  /** The driver's state: calibration, learned limits, sticky cuts. */
  driver?: DriverState;
}

/** A fresh state for a run over `messages`. */
export function createLoopState(messages: readonly Message[]): LoopState {
  return {
    version: 1,
    messages: [...messages],
    iterations: 0,
    usage: { promptTokens: 0, completionTokens: 0, providerCalls: 0 },
  };
}

/** Serializes a state to JSON text. */
export function serializeLoopState(state: LoopState): string {
  return JSON.stringify(state);
}

/** Reads a state written by {@link serializeLoopState}, with a clear error for anything else. */
export function parseLoopState(text: string): LoopState {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SpillwayError(
      'invalid_argument',
      `the saved run state is not valid JSON (${(error as Error).message}); pass the text serializeLoopState wrote`,
    );
  }
  const state = value as Partial<LoopState>;
  if (
    state?.version !== 1 ||
    !Array.isArray(state.messages) ||
    typeof state.iterations !== 'number' ||
    typeof state.usage !== 'object'
  ) {
    throw new SpillwayError(
      'invalid_argument',
      'the saved run state is not a Spillway loop state (version 1 with messages, iterations and usage)',
    );
  }
  return state as LoopState;
}
