/**
 * @module
 * A lane of work: one piece at a time, in the order handed in (the large-body lane).
 */

/** Runs work one piece at a time, in the order it was handed in. */
export class WorkLane {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `work` once everything handed in before it has finished. */
  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
