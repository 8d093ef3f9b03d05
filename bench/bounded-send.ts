/**
 * The bounded send: the per-send cost of fitting a 2,000-message, ~200k-token transcript after
 * appending one turn (incremental, cached per message) against a full re-estimate of the same
 * request, and a cold fit that prunes it into a 128k window.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import {
  type ChatRequest,
  ContextWindowManager,
  createEstimator,
  EstimateCache,
  type Message,
} from '../src/core/index.js';
import { buildMixedCorpus } from '../test/corpus/mixed-corpus.js';
import { createRandom } from '../test/corpus/random.js';
import { round, time } from './timing.js';

/** A coding session of `turns` tool turns (assistant call + result + a short assistant note every few). */
export function buildSession(turns: number, seed = 7): Message[] {
  const random = createRandom(seed);
  const texts = buildMixedCorpus({ seed, samplesPerClass: 40, maxChars: 1200 }).filter((sample) =>
    ['code_ts', 'code_js', 'json_results', 'shell_output', 'markdown', 'code_py'].includes(
      sample.contentClass,
    ),
  );
  const messages: Message[] = [
    {
      role: 'system',
      content: 'You are a coding agent. Read before you write; run the tests after each change.',
    },
    { role: 'user', content: 'Find why the session tests fail and fix them.' },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const id = `call_${turn}`;
    messages.push({
      role: 'assistant',
      content: random.chance(0.3) ? 'Checking the next file.' : '',
      toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: `src/module${turn}.ts` }) }],
    });
    messages.push({ role: 'tool', toolCallId: id, content: random.pick(texts).text });
  }
  return messages;
}

function realTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) {
    if (typeof message.content === 'string') total += countTokens(message.content);
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) total += countTokens(call.arguments);
  }
  return total;
}

export async function benchBoundedSend(): Promise<Record<string, unknown>> {
  // Per-send cost on a growing transcript.
  const session = buildSession(999);
  const tools: ChatRequest['tools'] = [
    {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ];
  const request = (messages: Message[]): ChatRequest => ({
    format: 'openai',
    model: 'gpt-4o',
    messages,
    tools,
    extra: {},
  });
  const manager = new ContextWindowManager({ contextLength: 1_000_000, model: 'gpt-4o' });
  const previous = session.slice(0, -2);
  manager.fit(request(previous));
  const incremental = time(() => {
    manager.fit(request(session));
    manager.fit(request(previous));
  });
  const full = time(() => {
    new EstimateCache(createEstimator({ family: 'o200k' })).request(request(session));
  });
  const prune = time(() =>
    new ContextWindowManager({ contextLength: 128_000, model: 'gpt-4o' }).fit(request(session)),
  );
  const perSend = {
    messages: session.length,
    real_tokens_o200k: realTokens(session),
    estimate: new EstimateCache(createEstimator({ family: 'o200k' })).request(request(session)).total,
    incremental_fit_ms: round(incremental.medianMs / 2, 3),
    full_reestimate_ms: round(full.medianMs, 3),
    ratio_full_over_incremental: round(full.medianMs / (incremental.medianMs / 2), 1),
    cold_fit_with_prune_to_128k_ms: round(prune.medianMs, 3),
  };
  return perSend;
}
