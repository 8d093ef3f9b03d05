/**
 * @module
 * Windows learned from providers' overflow errors, per model. A gateway may advertise a window that
 * differs from what its backend enforces; the figure in the backend's error is the truth.
 */

/** The smallest window figure believed: smaller ones are misread numbers, not windows. */
export const MIN_LEARNED_WINDOW = 1_024;
/** The largest window figure believed (2^30). */
export const MAX_LEARNED_WINDOW = 2 ** 30;

/** Learned windows by model id: plain data, so it serializes with a session. */
export type LearnedWindows = Readonly<Record<string, number>>;

/** Whether a figure could be a real context window. */
export function isPlausibleWindow(window: number): boolean {
  return Number.isInteger(window) && window >= MIN_LEARNED_WINDOW && window <= MAX_LEARNED_WINDOW;
}

/**
 * Records a window figure for a model. Implausible figures are ignored. The newest plausible figure
 * wins: the server's current enforcement is what matters.
 */
export function learnWindow(learned: LearnedWindows, model: string, window: number): LearnedWindows {
  if (!isPlausibleWindow(window) || learned[model] === window) return learned;
  return { ...learned, [model]: window };
}
