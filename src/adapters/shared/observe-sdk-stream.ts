/**
 * @module
 * Watching the events of an official SDK's `Stream` as the caller reads it, without replacing it.
 */

/**
 * Makes `stream` (a Stainless SDK `Stream`, as `openai` and `@anthropic-ai/sdk` return for
 * `stream: true`) call `onEvent` with every event the caller reads. The object stays the caller's:
 * `controller`, `tee()` and `toReadableStream()` keep working, since they all read through its
 * `iterator`. Returns false when the stream does not have that shape (its usage then goes unseen).
 *
 * @example
 * observeSdkStream(stream, (chunk) => { if (chunk.usage) report(chunk.usage); });
 */
export function observeSdkStream(stream: unknown, onEvent: (event: unknown) => void): boolean {
  if (typeof stream !== 'object' || stream === null) return false;
  const target = stream as { iterator?: unknown };
  const inner = target.iterator;
  if (typeof inner !== 'function') return false;
  target.iterator = async function* observed() {
    const events = (inner as () => AsyncIterator<unknown>).call(stream);
    let finished = false;
    try {
      for (;;) {
        const next = await events.next();
        if (next.done) {
          finished = true;
          return next.value;
        }
        try {
          onEvent(next.value);
        } catch {
          // Watching must never break the caller's stream.
        }
        yield next.value;
      }
    } finally {
      // A caller that stops early (break, return) ends the SDK's iterator too, which aborts the request.
      if (!finished) await events.return?.();
    }
  };
  return true;
}
