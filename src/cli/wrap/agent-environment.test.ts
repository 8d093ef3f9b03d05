import { lstat, mkdtemp, readFile, readlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentKindOf, agentLaunch, defaultUpstream } from './agent-environment.js';

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

  it('gives Codex OPENAI_BASE_URL, or a -c override of the named provider before its arguments', async () => {
    const env = {};
    expect(
      (await agentLaunch({ command: 'codex', args: ['exec', 'x'], proxyUrl, env })).env.OPENAI_BASE_URL,
    ).toBe(`${proxyUrl}/v1`);
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
