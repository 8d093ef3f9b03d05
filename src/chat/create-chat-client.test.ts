import { describe, expect, it } from 'vitest';
import { formatForBaseUrl, resolveApiKey } from './create-chat-client.js';

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
