import { lstat, mkdir, mkdtemp, readFile, readlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentKindOf, agentLaunch, defaultUpstream, piModels } from './agent-environment.js';

const proxyUrl = 'http://127.0.0.1:9999';

describe('agentLaunch', () => {
  it('points Claude Code, Gemini CLI and other clients at the proxy through their variables', async () => {
    const env = { PATH: '/bin' };
    expect((await agentLaunch({ command: 'claude', args: ['-p', 'x'], proxyUrl, env })).env).toMatchObject({
      ANTHROPIC_BASE_URL: proxyUrl,
      PATH: '/bin',
    });
    expect(
      (await agentLaunch({ command: 'gemini', args: [], proxyUrl, env })).env.GOOGLE_GEMINI_BASE_URL,
    ).toBe(proxyUrl);
    expect((await agentLaunch({ command: '/usr/bin/aider', args: [], proxyUrl, env })).env).toMatchObject({
      OPENAI_BASE_URL: `${proxyUrl}/v1`,
      OPENAI_API_BASE: `${proxyUrl}/v1`,
    });
  });

  it('gives Codex -c openai_base_url for its built-in provider, or -c for the named provider, before its arguments', async () => {
    const env = { CODEX_HOME: '/nonexistent' };
    const builtIn = await agentLaunch({ command: 'codex', args: ['exec', 'x'], proxyUrl, env });
    expect(builtIn.args).toEqual(['-c', `openai_base_url="${proxyUrl}/v1"`, 'exec', 'x']);
    expect(builtIn.env.OPENAI_BASE_URL).toBeUndefined();
    const custom = await agentLaunch({
      command: 'codex',
      args: ['exec', 'x'],
      proxyUrl,
      env,
      provider: 'local',
    });
    expect(custom.args).toEqual(['-c', `model_providers.local.base_url="${proxyUrl}/v1"`, 'exec', 'x']);
  });

  it('merges opencode’s provider base URL into any inline config already set', async () => {
    const env = {
      OPENCODE_CONFIG_CONTENT: JSON.stringify({ model: 'emu/m', provider: { emu: { name: 'emu' } } }),
    };
    const launch = await agentLaunch({ command: 'opencode', args: ['run'], proxyUrl, env, provider: 'emu' });
    expect(JSON.parse(launch.env.OPENCODE_CONFIG_CONTENT ?? '{}')).toEqual({
      model: 'emu/m',
      provider: { emu: { name: 'emu', options: { baseURL: `${proxyUrl}/v1` } } },
    });
  });

  it('gives pi a temporary agent directory linking the user’s files, its provider redirected, removed after', async () => {
    const own = await mkdtemp(join(tmpdir(), 'pi-own-'));
    await writeFile(join(own, 'auth.json'), '{}');
    await writeFile(
      join(own, 'models.json'),
      JSON.stringify({ providers: { emu: { api: 'openai-completions', baseUrl: 'http://x/v1' } } }),
    );
    const launch = await agentLaunch({
      command: 'pi',
      args: [],
      proxyUrl,
      env: { PI_CODING_AGENT_DIR: own },
      provider: 'emu',
    });
    const directory = launch.env.PI_CODING_AGENT_DIR as string;
    expect(directory).not.toBe(own);
    expect(await readlink(join(directory, 'auth.json'))).toBe(join(own, 'auth.json'));
    expect(JSON.parse(await readFile(join(directory, 'models.json'), 'utf8'))).toEqual({
      providers: { emu: { api: 'openai-completions', baseUrl: `${proxyUrl}/v1` } },
    });
    expect(JSON.parse(await readFile(join(own, 'models.json'), 'utf8')).providers.emu.baseUrl).toBe(
      'http://x/v1',
    );
    await launch.cleanup();
    await expect(lstat(directory)).rejects.toThrow();
  });
});

describe('agentKindOf and defaultUpstream', () => {
  it('knows agents by file name and finds the upstream they would use', () => {
    expect(agentKindOf('/home/u/.local/bin/claude')).toBe('claude');
    expect(agentKindOf('codex.js')).toBe('codex');
    expect(agentKindOf('my-agent')).toBe('openai');
    expect(defaultUpstream('claude', { ANTHROPIC_BASE_URL: 'http://gw' })).toBe('http://gw');
    expect(defaultUpstream('claude', {})).toBe('https://api.anthropic.com');
    expect(defaultUpstream('codex', {})).toBe('https://api.openai.com');
  });
});

describe('agentLaunch with the window', () => {
  const window = { model: 'qwen', contextLength: 28_000, outputCap: 4_096, source: 'discovered:vllm' };

  it('tells Claude Code the window and cap in its variables, a lower value of the user’s kept', async () => {
    const launch = await agentLaunch({ command: 'claude', args: [], proxyUrl, env: {}, window });
    expect(launch.env).toMatchObject({
      CLAUDE_CODE_AUTO_COMPACT_WINDOW: '28000',
      CLAUDE_CODE_MAX_CONTEXT_TOKENS: '28000',
      CLAUDE_CODE_MAX_OUTPUT_TOKENS: '4096',
    });
    expect(launch.told.find((told) => told.setting === 'CLAUDE_CODE_AUTO_COMPACT_WINDOW')?.note).toMatch(
      /100000/,
    );
    const lower = await agentLaunch({
      command: 'claude',
      args: [],
      proxyUrl,
      env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '20000' },
      window,
    });
    expect(lower.env.CLAUDE_CODE_AUTO_COMPACT_WINDOW).toBe('20000');
  });

  it('tells Codex the window and where to compact with -c overrides, but not its built-in provider off OpenAI', async () => {
    const builtIn = await agentLaunch({
      command: 'codex',
      args: ['exec', 'x'],
      proxyUrl,
      env: { CODEX_HOME: '/nonexistent' },
      window,
      upstream: 'http://gpu:8000',
    });
    expect(builtIn.args).toEqual(['-c', `openai_base_url="${proxyUrl}/v1"`, 'exec', 'x']);
    expect(builtIn.untold).toMatch(/compacts on OpenAI/);
    const launch = await agentLaunch({
      command: 'codex',
      args: ['exec', 'x'],
      proxyUrl,
      env: { CODEX_HOME: '/nonexistent' },
      window,
      provider: 'emu',
      upstream: 'http://gpu:8000',
    });
    expect(launch.args).toEqual([
      '-c',
      `model_providers.emu.base_url="${proxyUrl}/v1"`,
      '-c',
      'model_context_window=28000',
      '-c',
      'model_auto_compact_token_limit=25200',
      'exec',
      'x',
    ]);
  });

  it('tells opencode limit.context and limit.output of the model, in the provider its --model names', async () => {
    const launch = await agentLaunch({
      command: 'opencode',
      args: ['run', '--model', 'emu/qwen', 'hi'],
      proxyUrl,
      env: {},
      window,
    });
    expect(JSON.parse(launch.env.OPENCODE_CONFIG_CONTENT ?? '{}')).toEqual({
      provider: {
        emu: {
          options: { baseURL: `${proxyUrl}/v1` },
          models: { qwen: { limit: { context: 28_000, output: 4_096 } } },
        },
      },
    });
  });

  it('tells pi the window in its model entry, or in modelOverrides for a built-in model', async () => {
    const listed = piModels(
      { providers: { emu: { models: [{ id: 'qwen', contextWindow: 128_000, maxTokens: 16_000 }] } } },
      'emu',
      `${proxyUrl}/v1`,
      window,
    );
    expect(listed.models).toEqual({
      providers: {
        emu: {
          baseUrl: `${proxyUrl}/v1`,
          models: [{ id: 'qwen', contextWindow: 28_000, maxTokens: 4_096 }],
        },
      },
    });
    const builtIn = piModels({}, 'openai', `${proxyUrl}/v1`, { ...window, model: 'gpt-5' });
    expect(builtIn.models).toEqual({
      providers: {
        openai: {
          baseUrl: `${proxyUrl}/v1`,
          modelOverrides: { 'gpt-5': { contextWindow: 28_000, maxTokens: 4_096 } },
        },
      },
    });
  });

  it('tells Gemini CLI to compress at half the real window in the settings of a home of the run', async () => {
    const own = await mkdtemp(join(tmpdir(), 'gemini-own-'));
    await mkdir(join(own, '.gemini'));
    await writeFile(join(own, '.gemini', 'settings.json'), JSON.stringify({ general: { vimMode: true } }));
    await writeFile(join(own, '.gemini', 'trustedFolders.json'), '{}');
    const launch = await agentLaunch({
      command: 'gemini',
      args: [],
      proxyUrl,
      env: { HOME: own, GEMINI_API_KEY: 'k' },
      window: { ...window, model: 'gemini-2.5-pro' },
    });
    const home = launch.env.GEMINI_CLI_HOME as string;
    expect(home).not.toBe(own);
    expect(launch.env.GOOGLE_GEMINI_BASE_URL).toBe(proxyUrl);
    const settings = JSON.parse(await readFile(join(home, '.gemini', 'settings.json'), 'utf8'));
    expect(settings.general).toEqual({ vimMode: true });
    expect(settings.security).toEqual({ auth: { selectedType: 'gemini-api-key' } });
    expect(settings.model.compressionThreshold * 1_048_576).toBeCloseTo(14_000, 5);
    expect(await readlink(join(home, '.gemini', 'trustedFolders.json'))).toBe(
      join(own, '.gemini', 'trustedFolders.json'),
    );
    await launch.cleanup();
    await expect(lstat(home)).rejects.toThrow();
  });
});
