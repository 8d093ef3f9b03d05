import { describe, expect, it } from 'vitest';
import { compileOverflowPatterns } from '../config/index.js';
import type { ChatRequest } from '../core/index.js';
import { type ModelClient, ProviderError } from '../providers/index.js';
import { formatForBaseUrl, resolveApiKey, withOverflowPatterns } from './create-chat-client.js';

const request: ChatRequest = {
  format: 'openai',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
  extra: {},
};

function failing(body: string, status = 400): ModelClient {
  return {
    format: 'openai',
    baseUrl: 'http://127.0.0.1:1/v1',
    send: async () => {
      throw new ProviderError(`HTTP ${status}`, { failure: 'http', status, body });
    },
  };
}

describe('resolveApiKey', () => {
  it('takes the config key, then SPILLWAY_API_KEY, then the format’s own variable', () => {
    const env = { SPILLWAY_API_KEY: 'h', OPENAI_API_KEY: 'o', ANTHROPIC_API_KEY: 'a' };
    expect(resolveApiKey({ format: 'openai', configKey: 'c', env })).toEqual({
      apiKey: 'c',
      source: 'config api_key',
    });
    expect(resolveApiKey({ format: 'openai', env })).toEqual({ apiKey: 'h', source: 'SPILLWAY_API_KEY' });
    expect(
      resolveApiKey({ format: 'anthropic', env: { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' } }),
    ).toEqual({
      apiKey: 'a',
      source: 'ANTHROPIC_API_KEY',
    });
    expect(resolveApiKey({ format: 'openai', env: {} })).toEqual({ source: 'none' });
  });
});

describe('formatForBaseUrl', () => {
  it('speaks Messages to Anthropic’s host and Chat Completions elsewhere', () => {
    expect(formatForBaseUrl('https://api.anthropic.com')).toBe('anthropic');
    expect(formatForBaseUrl('http://127.0.0.1:8000/v1')).toBe('openai');
    expect(formatForBaseUrl(undefined)).toBe('openai');
  });
});

describe('withOverflowPatterns', () => {
  it('classifies provider errors with the user rows before the catalog', async () => {
    const patterns = compileOverflowPatterns([
      {
        name: 'acme-window',
        kind: 'context',
        regex: String.raw`acme: prompt (?<input>\d+) over (?<window>\d+)`,
      },
    ]);
    const client = withOverflowPatterns(failing('acme: prompt 9000 over 8192'), patterns);
    const error = await client.send(request).catch((caught: unknown) => caught);
    expect(ProviderError.isInstance(error)).toBe(true);
    expect((error as ProviderError).overflow).toMatchObject({
      kind: 'context',
      window: 8_192,
      input: 9_000,
      pattern: 'acme-window',
    });
    expect((error as ProviderError).toJSON()).toMatchObject({ code: 'provider_error', overflow: 'context' });
  });

  it('passes errors no row matches through unchanged', async () => {
    const patterns = compileOverflowPatterns([
      { name: 'acme-window', kind: 'context', regex: 'acme window' },
    ]);
    const original = failing('rate limited', 429);
    const error = await withOverflowPatterns(original, patterns)
      .send(request)
      .catch((caught: unknown) => caught);
    expect((error as ProviderError).overflow.kind).toBe('none');
    expect(withOverflowPatterns(original, [])).toBe(original);
  });
});
