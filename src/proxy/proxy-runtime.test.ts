import { describe, expect, it } from 'vitest';
import { type ProxyRuntime, upstreamUrl } from './proxy-runtime.js';

const runtime = (upstreamRoot: string) => ({ upstreamRoot }) as ProxyRuntime;

describe('upstreamUrl', () => {
  it('gives the same URL object for the same root and path, and another for another path', () => {
    const root = runtime('http://127.0.0.1:8000');
    const url = upstreamUrl(root, '/v1/chat/completions?x=1');
    expect(url.href).toBe('http://127.0.0.1:8000/v1/chat/completions?x=1');
    expect(upstreamUrl(root, '/v1/chat/completions?x=1')).toBe(url);
    expect(upstreamUrl(root, '/v1/messages')).not.toBe(url);
    expect(upstreamUrl(runtime('http://127.0.0.1:9000'), '/v1/chat/completions?x=1').port).toBe('9000');
  });

  it('keeps a path in use past 256 others, and the URL of a forgotten one is made again alike', () => {
    const root = runtime('http://127.0.0.1:8001');
    const busy = upstreamUrl(root, '/v1/chat/completions');
    const first = upstreamUrl(root, '/p/0');
    for (let index = 1; index <= 300; index++) {
      upstreamUrl(root, `/p/${index}`);
      expect(upstreamUrl(root, '/v1/chat/completions')).toBe(busy);
    }
    const again = upstreamUrl(root, '/p/0');
    expect(again).not.toBe(first);
    expect(again.href).toBe(first.href);
  });
});
