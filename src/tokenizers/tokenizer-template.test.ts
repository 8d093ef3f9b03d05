/**
 * A model's tokenizer counts a request with its model's template, as the provider renders it: the
 * check against the provider's reports then judges the vocabulary, and the right one is kept.
 */
import { describe, expect, it } from 'vitest';
import { realisticTools } from '../../test/fixtures/mcp/realistic-tools.mjs';
import {
  type ChatRequest,
  ContextWindowManager,
  ESTIMATOR_TEMPLATE,
  EstimateCache,
  type Message,
  openAIChatTemplate,
  type ToolDefinition,
} from '../core/index.js';
import { exactCounterFor, exactRequestCounter } from './index.js';

const MODEL = 'gpt-4o';

/** An agent's tool list: twelve tools shaped like a real MCP server's. */
const tools: ToolDefinition[] = realisticTools({ count: 12 }).map((tool) => ({
  name: tool.name,
  description: tool.description,
  parameters: tool.inputSchema as Record<string, unknown>,
}));

function request(messages: Message[]): ChatRequest {
  return { format: 'openai', model: MODEL, messages, tools, extra: {}, maxTokens: 4_096 };
}

const opening: Message[] = [
  { role: 'system', content: 'You are a coding agent with access to the issue tracker.' },
  { role: 'user', content: 'Find the open issues assigned to me and summarise them by component.' },
];
const afterCall: Message[] = [
  ...opening,
  {
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'call_1', name: tools[0]?.name ?? 'list', arguments: '{"assignee":"me","state":"open"}' },
    ],
  },
  {
    role: 'tool',
    toolCallId: 'call_1',
    content: JSON.stringify(
      Array.from({ length: 20 }, (_, index) => ({
        id: 4_100 + index,
        title: `Parser drops the trailing comment on line ${index * 7 + 3}`,
        component: index % 3 === 0 ? 'parser' : 'cli',
      })),
    ),
  },
];

describe("a model's tokenizer", () => {
  it('counts with the template of its family', async () => {
    const counter = await exactCounterFor(MODEL);
    expect(counter?.template).toEqual(openAIChatTemplate('o200k'));
    if (!counter) return;
    expect(new EstimateCache(counter).costs.template).toEqual(openAIChatTemplate('o200k'));
    // The estimator's upper figures render the same tools a tenth higher than OpenAI's format.
    const upper = new EstimateCache(counter, { template: ESTIMATOR_TEMPLATE }).request(
      request(opening),
    ).total;
    const own = new EstimateCache(counter).request(request(opening)).total;
    expect(upper / own).toBeGreaterThan(1.05);
  });

  it('is verified by the reports of a provider that counts as OpenAI documents, tools and all', async () => {
    const tokenizer = await exactCounterFor(MODEL);
    const provider = await exactRequestCounter(MODEL);
    if (!tokenizer || !provider) throw new Error('gpt-tokenizer is not installed');
    const notices: string[] = [];
    const manager = new ContextWindowManager({
      contextLength: 128_000,
      model: MODEL,
      tokenizer,
      onEvent: (event) => {
        if (event.type === 'notice') notices.push(event.notice.code);
      },
    });
    for (const messages of [opening, afterCall]) {
      manager.fit(request(messages));
      manager.observe({ promptTokens: provider.count(request(messages)) });
    }
    expect(notices).not.toContain('tokenizer_demoted');
    expect(manager.state.calibration.tokenizer).toMatchObject({ status: 'verified' });
  });
});
