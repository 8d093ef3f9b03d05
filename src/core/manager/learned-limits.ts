/**
 * @module
 * The limits a manager learned from the provider, by model: windows its overflow errors (or a
 * silent truncation) stated, output caps an `output_cap` overflow stated (only ever lowered), and
 * what it checks against the window. Each wins over the configured value for its model.
 */
import { type LearnedWindows, learnWindow, type WindowCheck } from '../budget/index.js';
import type { ManagerState } from './manager-state.js';

/** The configured limits the learned ones override. */
export interface ConfiguredLimits {
  contextLength?: number | undefined;
  outputCap?: number | undefined;
  windowCheck?: WindowCheck | undefined;
}

/** Learned limits by model, with the configured ones behind them. */
export class LearnedLimits {
  readonly #configured: ConfiguredLimits;
  #windows: LearnedWindows = {};
  #caps: Readonly<Record<string, number>> = {};
  #checks: Readonly<Record<string, WindowCheck>> = {};

  constructor(configured: ConfiguredLimits) {
    this.#configured = configured;
  }

  /** Records a window a provider stated for `model` (implausible figures are dropped). */
  learnWindow(model: string, window: number): void {
    this.#windows = learnWindow(this.#windows, model, window);
  }

  /** The window in force for a model: learned from the provider, else configured. */
  windowFor(model: string | undefined): number | undefined {
    const learned = model === undefined ? undefined : this.#windows[model];
    return learned ?? this.#configured.contextLength;
  }

  /** Records that the provider serving `model` checks `check` against the window. */
  learnWindowCheck(model: string, check: WindowCheck): void {
    if (this.#checks[model] !== check) this.#checks = { ...this.#checks, [model]: check };
  }

  /** What the provider checks against the window for a model: learned, else configured. */
  windowCheckFor(model: string | undefined): WindowCheck | undefined {
    const learned = model === undefined ? undefined : this.#checks[model];
    return learned ?? this.#configured.windowCheck;
  }

  /** Records an output cap stated for `model`; caps are only ever lowered. */
  learnOutputCap(model: string, cap: number): void {
    if (!Number.isInteger(cap) || cap <= 0) return;
    const current = this.#caps[model];
    if (current === undefined || cap < current) this.#caps = { ...this.#caps, [model]: cap };
  }

  /** The output cap in force for a model: the smaller of the configured and the learned one. */
  outputCapFor(model: string | undefined): number | undefined {
    const learned = model === undefined ? undefined : this.#caps[model];
    const configured = this.#configured.outputCap;
    if (learned === undefined) return configured;
    return configured === undefined ? learned : Math.min(configured, learned);
  }

  /** The learned limits as a manager's state carries them. */
  get state(): Pick<ManagerState, 'learnedWindows' | 'learnedOutputCaps' | 'learnedWindowChecks'> {
    return {
      learnedWindows: this.#windows,
      learnedOutputCaps: this.#caps,
      ...(Object.keys(this.#checks).length > 0 ? { learnedWindowChecks: this.#checks } : {}),
    };
  }

  /** Reads them back from a state; anything malformed is dropped. */
  restore(state: Partial<ManagerState>): void {
    this.#windows = { ...state.learnedWindows };
    this.#caps = { ...state.learnedOutputCaps };
    this.#checks = parseWindowChecks(state.learnedWindowChecks);
  }
}

/** Learned window checks read back from a state; anything but a known check is dropped. */
function parseWindowChecks(value: unknown): Record<string, WindowCheck> {
  const checks: Record<string, WindowCheck> = {};
  if (typeof value !== 'object' || value === null) return checks;
  for (const [model, check] of Object.entries(value))
    if (check === 'prompt' || check === 'prompt+reply') checks[model] = check;
  return checks;
}
