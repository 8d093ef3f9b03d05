import { describe, expect, it } from 'vitest';
import type { Message } from '../transcript/index.js';
import { appendMissingFacts, extractMustKeepFacts } from './must-keep-facts.js';

const messages: Message[] = [
  { role: 'system', content: 'You are an agent working in /etc/secret.conf' },
  {
    role: 'user',
    content: 'The `loadConfig` helper in src/config/load.ts breaks. Never change MAX_RETRIES.',
  },
  {
    role: 'assistant',
    content: 'I will read it and check parse_yaml_file.',
    toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"src/config/load.ts"}' }],
  },
  {
    role: 'tool',
    toolCallId: 'c1',
    content:
      'import { x } from "./schema/validate.ts";\nthrow new TypeError("config.port must be a number");',
  },
  {
    role: 'assistant',
    content: 'Running tests.',
    toolCalls: [{ id: 'c2', name: 'run', arguments: '{"command":"npm test"}' }],
  },
  {
    role: 'tool',
    toolCallId: 'c2',
    content: ' × test/load.test.ts > loads\n   AssertionError: expected 1 to be 2',
  },
  { role: 'user', content: 'Then add a test for ConfigLoader.' },
];

describe('extractMustKeepFacts', () => {
  it('finds paths, identifiers, error lines and the user requests, and skips the system prompt', () => {
    const facts = extractMustKeepFacts(messages);
    expect(facts.paths).toEqual(
      expect.arrayContaining(['src/config/load.ts', './schema/validate.ts', 'test/load.test.ts']),
    );
    expect(facts.paths).not.toContain('/etc/secret.conf');
    expect(facts.identifiers).toEqual(
      expect.arrayContaining(['loadConfig', 'MAX_RETRIES', 'parse_yaml_file', 'ConfigLoader']),
    );
    expect(facts.errors).toEqual([
      'throw new TypeError("config.port must be a number");',
      'AssertionError: expected 1 to be 2',
    ]);
    expect(facts.requests).toEqual([
      'The `loadConfig` helper in src/config/load.ts breaks. Never change MAX_RETRIES.',
      'Then add a test for ConfigLoader.',
    ]);
  });

  it('is deterministic', () => {
    expect(extractMustKeepFacts(structuredClone(messages))).toEqual(extractMustKeepFacts(messages));
  });
});

describe('appendMissingFacts', () => {
  it('appends only what the summary dropped', () => {
    const facts = extractMustKeepFacts(messages);
    const summary =
      'Fixed src/config/load.ts and loadConfig. MAX_RETRIES kept. Error: AssertionError: expected 1 to be 2.';
    const { text, missing } = appendMissingFacts(summary, facts);
    expect(text.startsWith(summary)).toBe(true);
    expect(text).toContain('Also keep');
    expect(text).toContain('test/load.test.ts');
    expect(missing).not.toContain('src/config/load.ts');
    expect(missing).not.toContain('loadConfig');
    expect(missing).not.toContain('AssertionError: expected 1 to be 2');
    expect(missing).toContain('ConfigLoader');
  });

  it('leaves a summary that kept everything unchanged', () => {
    const facts = { paths: ['a/b.ts'], identifiers: ['fooBar'], errors: [], requests: [] };
    expect(appendMissingFacts('a/b.ts and fooBar', facts)).toEqual({
      text: 'a/b.ts and fooBar',
      missing: [],
    });
  });
});
