import { describe, expect, it } from 'vitest';
import { ContextWindowManager, type Message } from '../core/index.js';
import { contextStatus } from './context-status.js';

const tools = [
  { name: 'read_file', description: 'Read a file.', parameters: { type: 'object', properties: {} } },
];
const turn = (index: number): Message[] => [
  { role: 'user', content: `Question ${index}: ${'why '.repeat(40)}` },
  { role: 'assistant', content: `Answer ${index}: ${'because '.repeat(40)}` },
];
const messages: Message[] = [{ role: 'system', content: 'Be brief.' }, ...turn(1), ...turn(2), ...turn(3)];

type Inputs = Parameters<typeof contextStatus>[0];

function status(last?: Inputs['last'], history = messages, lastSent?: Inputs['lastSent']) {
  return contextStatus({
    messages: history,
    tools,
    model: 'gpt-4o',
    manager: new ContextWindowManager({ model: 'gpt-4o', contextLength: 8_000 }),
    window: 8_000,
    budget: 7_000,
    ...(last ? { last } : {}),
    ...(lastSent ? { lastSent } : {}),
  });
}

const sum = (parts: ReturnType<typeof status>['parts']) =>
  parts.head.tokens + parts.turns.tokens + parts.toolOutputs.tokens + parts.schemas.tokens;

describe('contextStatus', () => {
  it('is the provider’s count of the last exchange while the history is what it left', () => {
    const result = status({
      prompt: 600,
      completion: 60,
      sent: messages,
      tools,
      messages,
      length: messages.length,
    });
    expect(result).toMatchObject({ tokens: 660, basis: 'provider', reported: { prompt: 600, reply: 60 } });
    expect(sum(result.parts)).toBe(660);
    expect(result.parts.schemas.sources.reduce((total, source) => total + source.tokens, 0)).toBe(
      result.parts.schemas.tokens,
    );
  });

  it('is the calibrated estimate once the history changed, with parts that add up to it', () => {
    const longer = [...messages, { role: 'user' as const, content: 'More?' }];
    const result = status(
      { prompt: 600, completion: 60, sent: messages, tools, messages, length: messages.length },
      longer,
    );
    expect(result.basis).toBe('estimate');
    expect(result.tokens).toBeGreaterThan(0);
    expect(sum(result.parts)).toBe(result.tokens);
  });

  it('adds an estimate of what came after the counted exchange when the history only grew', () => {
    const cancelled: Message[] = [...messages, { role: 'user', content: 'And then?' }];
    const counted = { prompt: 600, completion: 60, sent: messages, tools };
    const result = status(undefined, cancelled, counted);
    expect(result.basis).toBe('anchored');
    expect(result.added).toBeGreaterThan(0);
    expect(result.tokens).toBe(660 + (result.added ?? 0));
    expect(sum(result.parts)).toBe(result.tokens);
    const rewritten = [messages[0] as Message, { role: 'user' as const, content: 'A summary.' }];
    expect(status(undefined, rewritten, counted).basis).toBe('estimate');
  });

  it('counts the turns the last request left out, and splits only what it sent', () => {
    const sent = [messages[0] as Message, ...turn(3)];
    const result = status({ prompt: 300, completion: 60, sent, tools, messages, length: messages.length });
    expect(result.leftOut.turns).toBe(2);
    expect(result.parts.turns.count).toBe(1);
    expect(sum(result.parts)).toBe(360);
  });
});
