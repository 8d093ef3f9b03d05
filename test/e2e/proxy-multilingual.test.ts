/**
 * Conversations in Chinese, Russian, Japanese and emoji-heavy text through the proxy, against a
 * server that enforces 32,768 tokens and counts with o200k (gpt-4o's tokenizer). Spillway's estimator
 * over-counts such text (this Chinese about 5× o200k): a report far below the estimate is normal here,
 * not a silent truncation, and the window stays the server's. A real truncation is still caught
 * (test/e2e/proxy-silent-truncation.test.ts).
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { type ProxyLogEntry, startProxy } from '../../src/proxy/index.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((item) => item.close()));
});

const WINDOW = 32_768;

/** Text written for this test, one paragraph per language, repeated with a line number. */
const PARAGRAPHS: Record<string, string> = {
  chinese:
    '我们的服务在中国各地都有用户，他们每天都会使用这个系统来管理自己的工作和生活。中华人民共和国成立于一九四九年十月一日，首都是北京。',
  russian:
    'Парсер конфигурации читает каждый ключ и сообщает о ключах, которых он не знает. Тест падает, потому что значение по умолчанию перезаписывается при слиянии.',
  japanese:
    '設定ファイルのパーサーはすべてのキーを読み込み、知らないキーを報告します。テストが失敗するのは、マージの際に既定値が上書きされるためです。',
  emoji: '✅ parse ok 🚀 merge 🔁 default ⚠️ overwritten ❌ test failed 🧪🧪🧪 check order 🔍📄🗂️ 🙂🙃😅🤔',
};

/** A tool output all in one language: the paragraph, over and over, with no digits or markup. */
function output(language: string, times: number): string {
  return (PARAGRAPHS[language] ?? '').repeat(times);
}

describe('text the estimator over-counts, through the proxy at a 32k window', () => {
  for (const language of Object.keys(PARAGRAPHS)) {
    it(`never calls a conversation in ${language} silently truncated, and keeps the window`, async () => {
      const emulator = await startEmulator({ profile: 'vllm', model: 'gpt-4o', contextLength: WINDOW });
      open.push(emulator);
      const logs: ProxyLogEntry[] = [];
      const proxy = await startProxy({ upstream: emulator.url, port: 0, onLog: (entry) => logs.push(entry) });
      open.push(proxy);
      const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: PARAGRAPHS[language] ?? '' },
      ];
      const windows: Array<string | null> = [];
      for (let turn = 0; turn < 4; turn++) {
        const { response } = await client.chat.completions
          .create({ model: 'gpt-4o', messages, max_tokens: 1_000 })
          .withResponse();
        windows.push(response.headers.get('x-spillway-window'));
        const id = `call_${turn}`;
        messages.push(
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id, type: 'function', function: { name: 'read_file', arguments: `{"path":"f${turn}"}` } },
            ],
          },
          { role: 'tool', tool_call_id: id, content: output(language, 150) },
        );
      }
      const sent = emulator.requests.filter((record) => record.path === '/v1/chat/completions');
      expect(sent.map((record) => record.status)).toEqual(sent.map(() => 200));
      expect(windows).toEqual(windows.map(() => String(WINDOW)));
      expect(logs.filter((entry) => entry.event === 'silent_truncation')).toEqual([]);
      // Nothing was cut: the whole conversation fits the real window.
      expect(sent.at(-1)?.promptTokens).toBeLessThan(WINDOW);
    });
  }
});
