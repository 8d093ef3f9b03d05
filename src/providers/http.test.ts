import { describe, expect, it } from 'vitest';
import { readEvents } from './http.js';
import { ProviderError } from './provider-error.js';

/** A response whose body sends `chunks` and then nothing, its stream never closed. */
function stalling(chunks: string[]): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

async function drain(response: Response, timeouts: { idleMs?: number; firstChunkMs?: number }) {
  const events: string[] = [];
  try {
    for await (const event of readEvents(response, undefined, timeouts)) events.push(event.data);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

describe('readEvents', () => {
  it('ends a stream that goes silent after its first chunk with an error naming the wait', async () => {
    const { events, error } = await drain(stalling(['data: {"a":1}\n\n']), { idleMs: 20 });
    expect(events).toEqual(['{"a":1}']);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).failure).toBe('stream_timeout');
    expect((error as Error).message).toMatch(/stream idle timeout.*stream_idle_timeout_seconds/);
  });

  it('gives the first chunk its own, longer wait', async () => {
    const { events, error } = await drain(stalling([]), { idleMs: 5, firstChunkMs: 20 });
    expect(events).toEqual([]);
    expect((error as Error).message).toMatch(/first chunk timeout/);
  });
});
