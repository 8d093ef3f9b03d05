/**
 * The README's TypeScript examples as files of a consumer project, and the environment each runs in:
 * the official SDKs read their server from `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` (and the AI SDK's
 * Anthropic provider from `ANTHROPIC_BASE_URL`, with the `/v1` its default carries), so an example
 * written for the real APIs runs unchanged against the emulators.
 */

/** One ```ts block of the README or of a page under docs/. */
export interface ReadmeExample {
  /** `readme-<n>`, or `docs-<page>-<n>`: the file name without its extension. */
  name: string;
  /** Where the block's opening fence is (`docs/library.md:12`), for messages. */
  where: string;
  /** 1-based line of the block's opening fence. */
  line: number;
  code: string;
}

/** Every ```ts block of `text` (the document at `path`, default the README), in order. */
export function readmeExamples(text: string, path = 'README.md'): ReadmeExample[] {
  const examples: ReadmeExample[] = [];
  const lines = text.split('\n');
  const prefix =
    path === 'README.md'
      ? 'readme'
      : `docs-${path
          .replace(/^docs\//, '')
          .replace(/\.md$/, '')
          .replace(/\W+/g, '-')}`;
  for (let index = 0; index < lines.length; index++) {
    if (lines[index] !== '```ts') continue;
    const end = lines.indexOf('```', index + 1);
    if (end < 0) throw new Error(`${path}:${index + 1}: a \`\`\`ts block is never closed`);
    examples.push({
      name: `${prefix}-${examples.length + 1}`,
      where: `${path}:${index + 1}`,
      line: index + 1,
      code: `${lines.slice(index + 1, end).join('\n')}\n`,
    });
    index = end;
  }
  return examples;
}

/** Base URLs of the emulators the examples talk to. */
export interface ExampleServers {
  openai: string;
  anthropic: string;
  ollama: string;
}

/** The environment an example runs in: every SDK pointed at its emulator, no real key. */
export function exampleEnvironment(
  example: ReadmeExample,
  servers: ExampleServers,
  store: string,
): NodeJS.ProcessEnv {
  const aiSdkAnthropic = example.code.includes("from '@ai-sdk/anthropic'");
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    OPENAI_BASE_URL: `${servers.openai}/v1`,
    OPENAI_API_KEY: 'unused',
    ANTHROPIC_BASE_URL: aiSdkAnthropic ? `${servers.anthropic}/v1` : servers.anthropic,
    ANTHROPIC_API_KEY: 'unused',
    OLLAMA_HOST: servers.ollama,
    SPILLWAY_STORE: store,
  };
}

/** The emulator an example is expected to send requests to, from what it imports or reads. */
export function exampleServer(example: ReadmeExample): keyof ExampleServers | undefined {
  const code = example.code;
  if (code.includes('startEmulator(')) return undefined;
  if (code.includes('OLLAMA_HOST')) return 'ollama';
  if (code.includes("from '@anthropic-ai/sdk'") || code.includes("from '@ai-sdk/anthropic'"))
    return 'anthropic';
  if (code.includes("from 'openai'") || code.includes('OPENAI_BASE_URL')) return 'openai';
  return undefined;
}
