import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentModel, codexProvider } from './agent-model.js';
import { checkArgs } from './check-agent.js';

describe('agentModel', () => {
  it('reads the model each agent will ask for where that agent takes it', async () => {
    expect(agentModel('claude', ['--model', 'claude-opus-4-1', '-p', 'x'], {})).toEqual({
      model: 'claude-opus-4-1',
    });
    expect(agentModel('claude', [], { ANTHROPIC_MODEL: 'm' })).toEqual({ model: 'm' });
    expect(agentModel('opencode', ['run', '-m', 'emu/Qwen/Qwen3', 'x'], {})).toEqual({
      model: 'Qwen/Qwen3',
      provider: 'emu',
    });
    expect(agentModel('pi', ['--provider', 'emu', '--model=q'], {})).toEqual({ model: 'q', provider: 'emu' });
    expect(agentModel('gemini', [], { GEMINI_MODEL: 'gemini-2.5-flash' })).toEqual({
      model: 'gemini-2.5-flash',
    });
    const codexHome = await mkdtemp(join(tmpdir(), 'codex-home-'));
    await writeFile(
      join(codexHome, 'config.toml'),
      'model = "gpt-5" # mine\nmodel_provider = "emu"\n[model_providers.emu]\nmodel = "x"\n',
    );
    expect(agentModel('codex', ['exec', 'x'], { CODEX_HOME: codexHome })).toEqual({ model: 'gpt-5' });
    expect(agentModel('codex', ['-c', 'model="o3"', 'exec'], { CODEX_HOME: codexHome })).toEqual({
      model: 'o3',
    });
    expect(codexProvider([], { CODEX_HOME: codexHome })).toBe('emu');
    expect(codexProvider(['-c', 'model_provider=openai'], { CODEX_HOME: codexHome })).toBe('openai');
    expect(agentModel('openai', ['--model', 'x'], {})).toEqual({});
  });
});

describe('checkArgs', () => {
  it('makes each agent’s one-shot call, the user’s own arguments kept', () => {
    expect(checkArgs('codex', ['-m', 'gpt-5'])).toEqual([
      '-m',
      'gpt-5',
      'exec',
      '--skip-git-repo-check',
      'Reply with the single word: ok',
    ]);
    expect(checkArgs('opencode', ['--model', 'a/b'])).toEqual([
      'run',
      '--model',
      'a/b',
      'Reply with the single word: ok',
    ]);
    expect(checkArgs('claude', [])).toEqual(['-p', 'Reply with the single word: ok', '--max-turns', '1']);
    expect(checkArgs('openai', ['script.js'])).toEqual(['script.js']);
  });
});
