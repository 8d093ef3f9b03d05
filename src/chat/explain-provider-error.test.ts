import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../core/index.js';
import { ProviderError } from '../providers/index.js';
import { explainHttpError, requireApiKey } from './explain-provider-error.js';

const http = (status: number, body: string) =>
  new ProviderError(`HTTP ${status}`, { failure: 'http', status, body });
// Anthropic's error envelope for an unknown path (docs.anthropic.com, "Errors").
const ANTHROPIC_404 =
  '{"type":"error","error":{"type":"not_found_error","message":"Not Found"},"request_id":"req_011"}';
// OpenAI's body for a wrong key (platform.openai.com, "Error codes": 401 invalid_api_key).
const OPENAI_401 =
  '{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}';

describe('errors a chat user can act on', () => {
  it('refuses a hosted API without a key before sending anything, and lets a local server through', () => {
    const refusal = (() => {
      try {
        requireApiKey({ baseUrl: 'https://api.anthropic.com', format: 'anthropic' });
      } catch (error) {
        return error;
      }
    })();
    expect(SpillwayError.isInstance(refusal) && refusal.code).toBe('invalid_config');
    expect((refusal as Error).message).toMatch(
      /^no API key for https:\/\/api\.anthropic\.com: set ANTHROPIC_API_KEY/,
    );
    expect(() => requireApiKey({ baseUrl: 'http://127.0.0.1:8000/v1', format: 'openai' })).not.toThrow();
    expect(() =>
      requireApiKey({ baseUrl: 'https://api.openai.com/v1', format: 'openai', apiKey: 'sk' }),
    ).not.toThrow();
  });

  it('names the flag for a 404 from a server of the other format', () => {
    const base = 'http://127.0.0.1:9/v1';
    expect(
      explainHttpError({
        error: http(404, ANTHROPIC_404),
        format: 'openai',
        baseUrl: base,
        keySource: 'none',
      }),
    ).toBe(
      `${base} answered HTTP 404 (Not Found): this is an Anthropic Messages API, which has no /chat/completions; use --format anthropic (or "format": "anthropic" in the config)`,
    );
    expect(
      explainHttpError({
        error: http(404, '{"detail":"Not Found"}'),
        format: 'anthropic',
        baseUrl: base,
        keySource: 'none',
      }),
    ).toMatch(/use --format openai/);
    expect(
      explainHttpError({ error: http(404, 'nope'), format: 'openai', baseUrl: base, keySource: 'none' }),
    ).toMatch(/check --base-url/);
  });

  it('says where a refused key came from, or that none was sent', () => {
    const base = 'https://api.openai.com/v1';
    expect(
      explainHttpError({
        error: http(401, OPENAI_401),
        format: 'openai',
        baseUrl: base,
        keySource: 'OPENAI_API_KEY',
      }),
    ).toMatch(
      /answered HTTP 401 \(Incorrect API key provided: sk-abc\..*\): it refused the API key from OPENAI_API_KEY; check that key/,
    );
    expect(
      explainHttpError({ error: http(401, OPENAI_401), format: 'openai', baseUrl: base, keySource: 'none' }),
    ).toMatch(/it wants an API key and none was sent; set OPENAI_API_KEY/);
    expect(
      explainHttpError({ error: http(500, 'boom'), format: 'openai', baseUrl: base, keySource: 'none' }),
    ).toBeUndefined();
  });
});
