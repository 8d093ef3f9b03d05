import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyOverflow, type SpillwayError } from '../core/index.js';
import {
  loadProxyConfig,
  parseProxyConfig,
  proxyModelSettings,
  safeParseProxyConfig,
} from './proxy-config.js';

function rejection(value: unknown, source?: string): SpillwayError {
  const result = safeParseProxyConfig(value, source === undefined ? {} : { source });
  if (result.success) throw new Error('expected the config to be rejected');
  return result.error;
}

describe('parseProxyConfig', () => {
  it('reads every setting into the library spelling and compiles the overflow rows', () => {
    const config = parseProxyConfig({
      context_length: 32_768,
      output_cap: 4_096,
      reserve: 2_000,
      summary_max_tokens: 2_048,
      max_body_bytes: 1_000_000,
      overflow_patterns: [{ name: 'acme', kind: 'context', regex: String.raw`acme window (?<window>\d+)` }],
      models: { 'glm5.2': { context_length: 21_000, output_cap: 9_600 } },
    });
    expect(config).toMatchObject({
      contextLength: 32_768,
      outputCap: 4_096,
      reserve: 2_000,
      summaryMaxTokens: 2_048,
      maxBodyBytes: 1_000_000,
      models: { 'glm5.2': { contextLength: 21_000, outputCap: 9_600 } },
    });
    const info = classifyOverflow({
      status: 400,
      body: 'ACME window 8192',
      patterns: config.overflowPatterns,
    });
    expect(info).toMatchObject({ kind: 'context', window: 8_192, pattern: 'acme' });
  });

  it('reads a limit marked hard apart, and a model’s own figure replaces the top-level one in either form', () => {
    const config = parseProxyConfig({
      context_length: { value: 32_768, hard: true },
      output_cap: 4_096,
      probe_limits: false,
      models: {
        'glm5.2': { context_length: 21_000 },
        small: { output_cap: { value: 1_024, hard: true } },
      },
    });
    expect(config).toMatchObject({ hardContextLength: 32_768, outputCap: 4_096, probeLimits: false });
    expect(config.contextLength).toBeUndefined();
    expect(proxyModelSettings({ config, model: 'glm5.2' })).toEqual({
      contextLength: 21_000,
      outputCap: 4_096,
    });
    expect(proxyModelSettings({ config, model: 'small' })).toEqual({
      hardContextLength: 32_768,
      hardOutputCap: 1_024,
    });
    expect(parseProxyConfig({ context_length: { value: 8_192 } }).contextLength).toBe(8_192);
    expect(rejection({ context_length: { value: 8_192, hardd: true } }, 'proxy.json').message).toBe(
      'proxy.json: context_length.hardd: unknown key; use one of value, hard',
    );
  });

  it('reads the cut runway globally and per model, and rejects one that is not a number of turns', () => {
    const config = parseProxyConfig({ cut_runway: 2, models: { 'glm5.2': { cut_runway: 8 } } });
    expect(proxyModelSettings({ config, model: 'other' })).toEqual({ cutRunway: 2 });
    expect(proxyModelSettings({ config, model: 'GLM5.2' })).toEqual({ cutRunway: 8 });
    expect(rejection({ models: { m: { cut_runway: -1 } } }, 'proxy.json').message).toMatch(
      /^proxy\.json: models\.m\.cut_runway: /,
    );
  });

  it('accepts an empty object', () => {
    expect(parseProxyConfig({})).toEqual({ overflowPatterns: [], models: {} });
  });

  it('names the path of an unknown key, at the top and inside a model', () => {
    expect(rejection({ context_lenght: 1 }, 'proxy.json').message).toBe(
      'proxy.json: context_lenght: unknown key; use one of context_length, output_cap, reserve, summary_max_tokens, cut_runway, max_body_bytes, connect_timeout_ms, first_byte_timeout_ms, idle_timeout_ms, overflow_patterns, probe_limits, models',
    );
    const nested = rejection({ models: { 'glm5.2': { context_lenght: 1 } } });
    expect(nested.code).toBe('invalid_config');
    expect(nested.message).toBe(
      'models["glm5.2"].context_lenght: unknown key; use one of context_length, output_cap, reserve, summary_max_tokens, cut_runway',
    );
    expect(nested.data.path).toBe('models["glm5.2"].context_lenght');
  });

  it('names the path of a wrong value', () => {
    expect(rejection({ output_cap: -3 }).message).toMatch(/^output_cap: /);
    expect(rejection({ models: { a: { reserve: 1.5 } } }).message).toMatch(/^models\.a\.reserve: /);
    expect(rejection([]).message).toMatch(/^\(root\): /);
  });

  it('names the overflow row that does not compile', () => {
    const error = rejection(
      { overflow_patterns: [{ name: 'hostile', kind: 'context', regex: '(a?)+$' }] },
      'proxy.json',
    );
    expect(error.message).toMatch(
      /^proxy\.json: overflow_patterns\[0\] \("hostile"\): the regex uses a quantifier over something that can match nothing/,
    );
  });
});

describe('proxyModelSettings', () => {
  const config = parseProxyConfig({
    context_length: 16_384,
    reserve: 1_000,
    models: { 'GLM5.2': { context_length: 21_000 } },
  });

  it('lays the model entry over the top-level values, matching the id ignoring case', () => {
    expect(proxyModelSettings({ config, model: 'glm5.2' })).toEqual({
      contextLength: 21_000,
      reserve: 1_000,
    });
    expect(proxyModelSettings({ config, model: 'other' })).toEqual({ contextLength: 16_384, reserve: 1_000 });
    expect(proxyModelSettings({ config: undefined, model: 'glm5.2' })).toEqual({});
  });
});

describe('loadProxyConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-proxy-config-'));

  it('reads a file and names it in every error', async () => {
    const good = join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ context_length: 8_192 }));
    expect((await loadProxyConfig(good)).contextLength).toBe(8_192);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ "context_length": ');
    await expect(loadProxyConfig(bad)).rejects.toThrow(new RegExp(`^${bad}: not valid JSON`));
    await expect(loadProxyConfig(join(dir, 'missing.json'))).rejects.toThrow(/cannot read .*ENOENT/);
  });
});

describe('consistency between keys', () => {
  const refused = (value: unknown) => rejection(value, 'proxy.json');

  it('refuses a reserve that leaves no room for a prompt, naming both keys', () => {
    const error = refused({ context_length: 1_000, reserve: 100_000 });
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(
      /^proxy\.json: reserve \(100000\) leaves no room for a prompt in context_length \(1000\)/,
    );
    expect(error.data).toMatchObject({ path: 'reserve', conflictsWith: 'context_length' });
  });

  it('checks every model with its own values over the top-level ones, naming where each came from', () => {
    const inherited = refused({ reserve: 30_000, models: { 'glm5.2': { context_length: 8_192 } } });
    expect(inherited.message).toMatch(
      /reserve \(30000\) leaves no room for a prompt in models\["glm5\.2"\]\.context_length \(8192\)/,
    );
    const own = refused({ context_length: 8_192, models: { tiny: { reserve: 9_000 } } });
    expect(own.message).toMatch(
      /models\.tiny\.reserve \(9000\) leaves no room for a prompt in context_length \(8192\)/,
    );
    expect(
      parseProxyConfig({
        context_length: 8_192,
        reserve: 4_096,
        models: { big: { context_length: 128_000 } },
      }).reserve,
    ).toBe(4_096);
  });

  it('takes the upstream timeouts, positive milliseconds only', () => {
    const config = parseProxyConfig({
      connect_timeout_ms: 2_000,
      first_byte_timeout_ms: 600_000,
      idle_timeout_ms: 60_000,
    });
    expect(config).toMatchObject({
      connectTimeoutMs: 2_000,
      firstByteTimeoutMs: 600_000,
      idleTimeoutMs: 60_000,
    });
    expect(refused({ idle_timeout_ms: 0 }).message).toMatch(/^proxy\.json: idle_timeout_ms: /);
  });
});
