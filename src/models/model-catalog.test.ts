import { describe, expect, it } from 'vitest';
import { lookupModel } from './model-catalog.js';
import { aliasKey, modelKey, providerPrefix } from './model-key.js';
import { MODEL_OVERRIDES } from './model-overrides.js';

describe('model keys', () => {
  it('reads provider paths, route tags, Bedrock and Vertex spellings, dots and case alike', () => {
    expect(modelKey('openrouter/anthropic/Claude-3.5-Sonnet:beta')).toBe('claude-3-5-sonnet');
    expect(modelKey('us.anthropic.claude-3-5-sonnet-20241022-v2:0')).toBe('claude-3-5-sonnet-20241022');
    expect(modelKey('claude-sonnet-4@20250514')).toBe('claude-sonnet-4-20250514');
    expect(modelKey('qwen2.5:latest')).toBe('qwen2-5');
    expect(aliasKey('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(aliasKey('gpt-4o-2024-08-06')).toBe('gpt-4o');
    expect(aliasKey('claude-3-5-sonnet-latest')).toBe('claude-3-5-sonnet');
    expect(aliasKey('gpt-4-0613')).toBe('gpt-4');
    expect(providerPrefix('openai/gpt-4o')).toBe('openai');
    expect(providerPrefix('gpt-4o')).toBeUndefined();
  });
});

describe('lookupModel', () => {
  it('matches exact ids, aliases with date suffixes, provider prefixes and case', () => {
    expect(lookupModel({ model: 'gpt-4o' })).toMatchObject({
      provider: 'openai',
      id: 'gpt-4o',
      contextLength: 128_000,
      outputCap: 16_384,
      match: 'exact',
      origin: 'models.dev',
    });
    expect(lookupModel({ model: 'gpt-4o-2024-08-06' })).toMatchObject({ id: 'gpt-4o', match: 'alias' });
    expect(lookupModel({ model: 'openai/gpt-4o' })).toMatchObject({ provider: 'openai', id: 'gpt-4o' });
    expect(lookupModel({ model: 'GPT-4o' })?.id).toBe('gpt-4o');
    expect(lookupModel({ model: 'claude-sonnet-4-5-20250929' })).toMatchObject({
      provider: 'anthropic',
      id: 'claude-sonnet-4-5',
      contextLength: 200_000,
      outputCap: 64_000,
      match: 'alias',
    });
    expect(lookupModel({ model: 'anthropic/claude-3.5-sonnet' })).toMatchObject({
      provider: 'anthropic',
      contextLength: 200_000,
    });
    expect(lookupModel({ model: 'anthropic.claude-3-5-sonnet-20241022-v2:0' })?.provider).toBe('anthropic');
  });

  it('prefers the provider asked for, then the one the id names, then the family’s home', () => {
    // GitHub Copilot serves Claude Sonnet 4 with a 128k window; Anthropic with 200k.
    expect(lookupModel({ model: 'claude-sonnet-4', provider: 'github-copilot' })).toMatchObject({
      provider: 'github-copilot',
      contextLength: 128_000,
    });
    expect(lookupModel({ model: 'claude-sonnet-4' })).toMatchObject({
      provider: 'anthropic',
      contextLength: 200_000,
    });
    expect(lookupModel({ model: 'anthropic/claude-sonnet-4', provider: 'openrouter' })?.provider).toBe(
      'openrouter',
    );
    expect(lookupModel({ model: 'gpt-4o', provider: 'Azure' })?.provider).toBe('azure');
    expect(lookupModel({ model: 'claude-sonnet-4', provider: 'bedrock' })?.provider).toBe('amazon-bedrock');
  });

  it('takes the smallest window when no preferred provider has the model', () => {
    const match = lookupModel({ model: 'deepseek/deepseek-r1:free' });
    expect(match).toBeDefined();
    expect(match?.contextLength).toBeLessThanOrEqual(163_840);
  });

  it('knows the overrides, each with a source, and nothing about unknown models', () => {
    for (const row of MODEL_OVERRIDES) {
      expect(row.source).toMatch(/\S/);
      expect(lookupModel({ model: row.id, provider: row.provider })).toMatchObject({
        contextLength: row.contextLength,
        origin: 'override',
      });
    }
    expect(lookupModel({ model: 'glm5.2' })).toBeUndefined();
    expect(lookupModel({ model: 'my-finetune-v3' })).toBeUndefined();
  });
});
