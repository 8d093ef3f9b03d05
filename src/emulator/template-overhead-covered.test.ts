import { describe, expect, it } from 'vitest';
import {
  CHATML_TEMPLATE,
  EstimateCache,
  fromOpenAIChat,
  MESSAGE_OVERHEAD,
  REQUEST_OVERHEAD,
  TOOL_BLOCK_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  TOOL_DEFINITION_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
} from '../core/index.js';
import { createGptTokenizerCounter } from '../tokenizers/index.js';
import { countPromptTokens } from './count-prompt-tokens.js';
import { measureTemplateOverhead } from './template-overhead.js';

describe("the estimator's template overheads", () => {
  it.each(['o200k', 'cl100k'] as const)('cover what the emulators’ template adds with %s', (tokenizer) => {
    const measured = measureTemplateOverhead({ tokenizer });
    expect(MESSAGE_OVERHEAD).toBeGreaterThanOrEqual(measured.message.max);
    expect(TOOL_RESULT_OVERHEAD).toBeGreaterThanOrEqual(measured.toolResult.max);
    expect(TOOL_CALL_OVERHEAD).toBeGreaterThanOrEqual(measured.toolCall.max);
    expect(TOOL_DEFINITION_OVERHEAD).toBeGreaterThanOrEqual(measured.toolSchema.max);
    expect(TOOL_BLOCK_OVERHEAD).toBeGreaterThanOrEqual(measured.request.toolsBlock);
    expect(REQUEST_OVERHEAD).toBeGreaterThanOrEqual(measured.request.base + measured.request.defaultSystem);
  });

  it.each(['o200k', 'cl100k'] as const)(
    'are what CHATML_TEMPLATE states, the largest measured with %s',
    (tokenizer) => {
      const measured = measureTemplateOverhead({ tokenizer });
      expect(CHATML_TEMPLATE.message).toBeGreaterThanOrEqual(measured.message.max);
      expect(CHATML_TEMPLATE.toolResult).toBeGreaterThanOrEqual(measured.toolResult.max);
      expect(CHATML_TEMPLATE.toolCall).toBeGreaterThanOrEqual(measured.toolCall.max);
      expect(CHATML_TEMPLATE.toolDefinition).toBeGreaterThanOrEqual(measured.toolSchema.max);
      expect(CHATML_TEMPLATE.toolBlock).toBeGreaterThanOrEqual(measured.request.toolsBlock);
      expect(CHATML_TEMPLATE.request).toBe(measured.request.base);
      expect(CHATML_TEMPLATE.defaultSystem).toBe(measured.request.defaultSystem);
    },
  );
});

describe('an exact request count with the ChatML costs', () => {
  it('is at or just above what the emulators report for a tool-using request', () => {
    const body = {
      model: 'Qwen/Qwen2.5-7B-Instruct',
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'Run the tests and fix what fails.' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'run', arguments: '{"command":"npm test"}' },
            },
          ],
        },
        {
          role: 'tool',
          tool_call_id: 'call_1',
          content: ' FAIL  src/budget.test.ts > keeps a reserve\nAssertionError: expected 1000 to be 1024',
        },
        {
          role: 'assistant',
          content: 'The reserve constant is 1,000; the test expects 1,024. I will change the constant.',
        },
        { role: 'user', content: 'Go ahead.' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'run',
            description: 'Run a shell command.',
            parameters: {
              type: 'object',
              properties: { command: { type: 'string' } },
              required: ['command'],
            },
          },
        },
      ],
    };
    for (const tokenizer of ['o200k', 'cl100k'] as const) {
      const real = countPromptTokens(body, { tokenizer }).tokens;
      const counter = createGptTokenizerCounter(tokenizer === 'o200k' ? 'o200k_base' : 'cl100k_base');
      const counted = new EstimateCache(counter, { template: CHATML_TEMPLATE }).request(
        fromOpenAIChat(body),
      ).total;
      expect(counted).toBeGreaterThanOrEqual(real);
      expect(counted).toBeLessThanOrEqual(real + 30);
    }
  });
});
