import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyOverflow, type SpillwayError } from '../core/index.js';
import { chatConfigCandidates, loadChatConfig, parseChatConfig, safeParseChatConfig } from './chat-config.js';

function rejection(value: unknown, source?: string): SpillwayError {
  const result = safeParseChatConfig(value, source === undefined ? {} : { source });
  if (result.success) throw new Error('expected the config to be rejected');
  return result.error;
}

describe('parseChatConfig', () => {
  it('reads a limit marked hard apart, and ollama_num_ctx', () => {
    const config = parseChatConfig({
      context_length: { value: 32_768, hard: true },
      output_cap: { value: 4_096 },
      ollama_num_ctx: 16_384,
    });
    expect(config).toMatchObject({ hardContextLength: 32_768, outputCap: 4_096, ollamaNumCtx: 16_384 });
    expect(config.contextLength).toBeUndefined();
    expect(rejection({ output_cap: { value: 10, hrad: true } }).message).toBe(
      'output_cap.hrad: unknown key; use one of value, hard',
    );
    expect(rejection({ context_length: { value: 1_000, hard: true }, reserve: 100_000 }).message).toMatch(
      /^reserve \(100000\) leaves no room for a prompt in context_length \(1000\)/,
    );
  });

  it('reads every setting into the library spelling and compiles the overflow rows', () => {
    const config = parseChatConfig({
      base_url: 'http://127.0.0.1:8000/v1',
      model: 'qwen2.5-coder',
      format: 'openai',
      api_key: 'sk-local',
      context_length: 32_768,
      output_cap: 4_096,
      reserve: 2_000,
      safety_ratio: 0.05,
      summary_max_tokens: 2_048,
      cut_runway: 3,
      overflow_patterns: [{ name: 'acme', kind: 'context', regex: String.raw`acme window (?<window>\d+)` }],
      mcp_servers: {
        github: { command: 'github-mcp-server', args: ['stdio'], env: { GITHUB_TOKEN: 't' } },
        docs: { url: 'http://127.0.0.1:9000/mcp', headers: { authorization: 'Bearer x' } },
      },
      deferred_tools: { enabled: true, max_loaded: 12, always_loaded: ['github__get_issue'] },
      max_iterations: 30,
      system_prompt: 'You are terse.',
      command_timeout_seconds: 30,
      prices: { input: 2.5, cached_input: 1.25, output: 10 },
    });
    expect(config).toMatchObject({
      baseUrl: 'http://127.0.0.1:8000/v1',
      model: 'qwen2.5-coder',
      format: 'openai',
      apiKey: 'sk-local',
      contextLength: 32_768,
      outputCap: 4_096,
      reserve: 2_000,
      safetyRatio: 0.05,
      summaryMaxTokens: 2_048,
      cutRunway: 3,
      mcpServers: [
        { name: 'github', command: 'github-mcp-server', args: ['stdio'], env: { GITHUB_TOKEN: 't' } },
        { name: 'docs', url: 'http://127.0.0.1:9000/mcp', headers: { authorization: 'Bearer x' } },
      ],
      deferredTools: { enabled: true, maxLoaded: 12, alwaysLoaded: ['github__get_issue'] },
      maxIterations: 30,
      systemPrompt: 'You are terse.',
      commandTimeoutMs: 30_000,
      prices: { input: 2.5, cachedInput: 1.25, output: 10 },
    });
    expect(
      classifyOverflow({ status: 400, body: 'ACME window 8192', patterns: config.overflowPatterns }),
    ).toMatchObject({ kind: 'context', window: 8_192, pattern: 'acme' });
  });

  it('accepts an empty object, with deferred loading on auto', () => {
    expect(parseChatConfig({})).toEqual({
      overflowPatterns: [],
      mcpServers: [],
      deferredTools: { enabled: 'auto', alwaysLoaded: [] },
    });
  });

  it('names the path of an unknown key at the top, with the keys allowed', () => {
    const error = rejection({ context_lenght: 8_192 }, 'spillway.config.json');
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(
      /^spillway\.config\.json: context_lenght: unknown key; use one of base_url, /,
    );
    expect(error.data.path).toBe('context_lenght');
  });

  it('names the path of a typo in the prices, and refuses a negative price', () => {
    expect(rejection({ prices: { input: 1, output: 2, cached: 0.5 } }).message).toMatch(
      /^prices\.cached: unknown key; use one of input, cached_input, cache_write, output$/,
    );
    expect(rejection({ prices: { input: -1, output: 2 } }).data.path).toBe('prices.input');
  });

  it('names the path of a typo inside an MCP server and a deferred-tools block', () => {
    expect(rejection({ mcp_servers: { github: { comand: 'x' } } }).message).toMatch(
      /^mcp_servers\.github\.comand: unknown key; use one of command, args/,
    );
    expect(rejection({ deferred_tools: { max_load: 3 } }).message).toMatch(
      /^deferred_tools\.max_load: unknown key; use one of enabled, max_loaded, always_loaded/,
    );
  });

  it('rejects wrong values with their path', () => {
    expect(rejection({ context_length: -1 }).message).toMatch(/^context_length: /);
    expect(rejection({ format: 'gemini' }).message).toMatch(/^format: /);
    expect(rejection({ safety_ratio: 0.7 }).message).toMatch(/^safety_ratio: /);
    expect(rejection({ base_url: 'ftp://host/v1' }).message).toMatch(/^base_url: /);
    expect(rejection({ mcp_servers: { 'bad name': { command: 'x' } } }).message).toMatch(/^mcp_servers/);
  });

  it('reports an overflow row that is unsafe, naming the row and the file', () => {
    const error = rejection(
      { overflow_patterns: [{ name: 'hostile', kind: 'context', regex: '(a?)+$' }] },
      'cfg.json',
    );
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(/^cfg\.json: overflow_patterns\[0\] \("hostile"\): .*linear time/);
  });
});

describe('loadChatConfig', () => {
  it('reads spillway.config.json in the working directory before the user config', async () => {
    const home = mkdtempSync(join(tmpdir(), 'spillway-home-'));
    const cwd = mkdtempSync(join(tmpdir(), 'spillway-cwd-'));
    mkdirSync(join(home, '.config', 'spillway'), { recursive: true });
    writeFileSync(join(home, '.config', 'spillway', 'config.json'), JSON.stringify({ model: 'from-home' }));
    const env = { HOME: home };
    expect((await loadChatConfig({ cwd, env })).model).toBe('from-home');
    writeFileSync(join(cwd, 'spillway.config.json'), JSON.stringify({ model: 'from-cwd' }));
    const config = await loadChatConfig({ cwd, env });
    expect(config.model).toBe('from-cwd');
    expect(config.source).toBe(join(cwd, 'spillway.config.json'));
    expect(chatConfigCandidates({ cwd, env: { XDG_CONFIG_HOME: '/x' } })[1]).toBe('/x/spillway/config.json');
  });

  it('is empty when no file exists, and fails for a missing --config file', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'spillway-empty-'));
    expect((await loadChatConfig({ cwd: empty, env: { HOME: empty } })).mcpServers).toEqual([]);
    await expect(loadChatConfig({ file: join(empty, 'nope.json') })).rejects.toThrow(/ENOENT/);
  });

  it('names the file when it is not JSON or not valid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spillway-bad-'));
    const file = join(dir, 'c.json');
    writeFileSync(file, '{ "model": ');
    await expect(loadChatConfig({ file })).rejects.toThrow(`${file}: not valid JSON`);
    writeFileSync(file, JSON.stringify({ modle: 'x' }));
    await expect(loadChatConfig({ file })).rejects.toThrow(`${file}: modle: unknown key`);
  });
});

describe('consistency between keys', () => {
  it('refuses a reserve the window cannot hold with its safety margin, naming both keys', () => {
    const error = rejection({ context_length: 1_000, reserve: 100_000 }, 'cfg.json');
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(
      /^cfg\.json: reserve \(100000\) leaves no room for a prompt in context_length \(1000\)/,
    );
    // 8,192 − 7,900 − 30% of 8,192 is below zero: the safety ratio counts.
    expect(rejection({ context_length: 8_192, reserve: 7_900, safety_ratio: 0.3 }).message).toMatch(
      /reserve \(7900\) leaves no room/,
    );
    expect(parseChatConfig({ context_length: 8_192, reserve: 4_096 }).reserve).toBe(4_096);
  });

  it('refuses more always-loaded tools than may be loaded at once', () => {
    const error = rejection({ deferred_tools: { max_loaded: 1, always_loaded: ['a__x', 'b__y'] } });
    expect(error.message).toMatch(
      /deferred_tools\.always_loaded names 2 tools, more than deferred_tools\.max_loaded \(1\)/,
    );
  });
});
