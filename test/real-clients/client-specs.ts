/**
 * The real clients of the client suite: how each is configured for one run (a fresh home and
 * config pointing at the emulator, as a user would set it up), the emulator it meets, the window
 * that emulator enforces and the window the client is told it has.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmulatorProfileName } from '../../src/emulator/index.js';
import { CLIENTS_DIR } from './install-clients.js';

/**
 * A multi-step task: the files it names (the generic agent looks at the directory, reads each file,
 * writes their line counts and answers) and the lines in each.
 */
export interface ClientTask {
  files: readonly string[];
  /** Lines in each file. */
  lines: number;
  /** What the client is asked. */
  prompt: string;
  /** The steps a complete run answers: looking, one read per file, writing the counts, the answer. */
  steps: number;
}

/** The task of `count` files named `notes-N.txt`, each of `lines` lines. */
export function notesTask({ count, lines }: { count: number; lines: number }): ClientTask {
  const files = Array.from({ length: count }, (_, index) => `notes-${index + 1}.txt`);
  return {
    files,
    lines,
    prompt: `Read ${files.slice(0, -1).join(', ')} and ${files.at(-1)} and write their line counts to a file.`,
    steps: count + 3,
  };
}

/** The task every client of the suite is given. */
export const TASK = notesTask({ count: 4, lines: 150 });

/** What a spec sets up for one run. */
export interface ClientSetup {
  /** The agent's arguments (after its name). */
  args: string[];
  env: NodeJS.ProcessEnv;
  /** `spillway wrap` flags that go before the agent's name. */
  wrapFlags: string[];
}

/** One client of the suite. */
export interface ClientSpec {
  name: string;
  /** Its npm package (pinned in `pinned-clients.json`). */
  package: string;
  /** Its command, as `spillway wrap` knows it. */
  command: string;
  /** The API it speaks. */
  api: string;
  profile: EmulatorProfileName;
  model: string;
  /** The window the emulator enforces. */
  window: number;
  /** The window the client is told (or assumes) it has. */
  believed: number;
  task: ClientTask;
  setup(options: { home: string; upstream: string }): ClientSetup;
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'window', 'budget', 'token', 'prune', 'stream', 'cache'];

/** Writes `task`'s files into `directory`: deterministic lines of words. */
export function writeTaskFiles(directory: string, task: ClientTask): void {
  mkdirSync(directory, { recursive: true });
  task.files.forEach((file, fileIndex) => {
    const lines: string[] = [];
    for (let line = 0; line < task.lines; line++) {
      const words = Array.from(
        { length: 8 },
        (_, word) => WORDS[(line * 7 + word * 3 + fileIndex * 5) % WORDS.length],
      );
      lines.push(`line ${line}: ${words.join(' ')}`);
    }
    writeFileSync(join(directory, file), `${lines.join('\n')}\n`);
  });
}

const QWEN = 'Qwen/Qwen2.5-7B-Instruct';

/**
 * pi against a vLLM emulator enforcing `window`, its models.json telling it `believed` and an output
 * cap of `maxTokens`, on `task`.
 */
export function piSpec({
  name,
  window,
  believed,
  maxTokens,
  task,
}: {
  name: string;
  window: number;
  believed: number;
  maxTokens: number;
  task: ClientTask;
}): ClientSpec {
  return {
    name,
    package: '@mariozechner/pi-coding-agent',
    command: 'pi',
    api: 'OpenAI Chat Completions',
    profile: 'vllm',
    model: QWEN,
    window,
    believed,
    task,
    setup: ({ home, upstream }) => {
      const agentDir = join(home, '.pi', 'agent');
      mkdirSync(agentDir, { recursive: true });
      writeFileSync(
        join(agentDir, 'models.json'),
        JSON.stringify({
          providers: {
            emu: {
              baseUrl: `${upstream}/v1`,
              api: 'openai-completions',
              apiKey: 'sk-suite',
              compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
              models: [{ id: QWEN, contextWindow: believed, maxTokens }],
            },
          },
        }),
      );
      return {
        args: ['-p', '--no-session', '--provider', 'emu', '--model', QWEN, task.prompt],
        env: { HOME: home, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1' },
        wrapFlags: ['--upstream', upstream, '--provider', 'emu'],
      };
    },
  };
}

export const CLIENT_SPECS: readonly ClientSpec[] = [
  {
    name: 'Claude Code',
    package: '@anthropic-ai/claude-code',
    command: 'claude',
    api: 'Anthropic Messages',
    profile: 'anthropic',
    model: 'claude-sonnet-4-5',
    window: 40_000,
    believed: 200_000,
    task: TASK,
    setup: ({ home, upstream }) => ({
      args: ['--model', 'claude-sonnet-4-5', '-p', TASK.prompt, '--dangerously-skip-permissions'],
      env: {
        ANTHROPIC_BASE_URL: upstream,
        ANTHROPIC_API_KEY: 'sk-ant-suite',
        // The suite runs as root in CI; Claude Code allows skipping permissions there in a sandbox.
        IS_SANDBOX: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        HOME: home,
      },
      wrapFlags: [],
    }),
  },
  {
    name: 'Codex CLI',
    package: '@openai/codex',
    command: 'codex',
    api: 'OpenAI Responses',
    profile: 'vllm',
    model: QWEN,
    window: 14_000,
    believed: 128_000,
    task: TASK,
    setup: ({ home, upstream }) => {
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, 'config.toml'),
        [
          `model = "${QWEN}"`,
          'model_provider = "emu"',
          'model_context_window = 128000',
          '[model_providers.emu]',
          'name = "emu"',
          `base_url = "${upstream}/v1"`,
          'env_key = "EMU_API_KEY"',
          'wire_api = "responses"',
          '',
        ].join('\n'),
      );
      return {
        args: ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', TASK.prompt],
        env: { CODEX_HOME: codexHome, EMU_API_KEY: 'sk-suite', HOME: home },
        wrapFlags: ['--upstream', upstream, '--provider', 'emu'],
      };
    },
  },
  {
    name: 'opencode',
    package: 'opencode-ai',
    command: 'opencode',
    api: 'OpenAI Chat Completions (AI SDK)',
    profile: 'vllm',
    model: QWEN,
    window: 24_000,
    believed: 128_000,
    task: TASK,
    setup: ({ home, upstream }) => {
      const config = join(home, 'opencode.json');
      writeFileSync(
        config,
        JSON.stringify({
          $schema: 'https://opencode.ai/config.json',
          autoupdate: false,
          provider: {
            emu: {
              npm: '@ai-sdk/openai-compatible',
              name: 'emu',
              options: { baseURL: `${upstream}/v1`, apiKey: 'sk-suite' },
              models: { [QWEN]: { limit: { context: 128_000, output: 16_000 } } },
            },
          },
        }),
      );
      return {
        args: ['run', '--model', `emu/${QWEN}`, TASK.prompt],
        env: {
          HOME: home,
          OPENCODE_CONFIG: config,
          OPENCODE_DISABLE_AUTOUPDATE: '1',
          XDG_CONFIG_HOME: join(home, '.config'),
          XDG_DATA_HOME: join(home, '.local', 'share'),
          XDG_STATE_HOME: join(home, '.local', 'state'),
          // The provider package opencode installs on first use, shared between runs.
          XDG_CACHE_HOME: join(CLIENTS_DIR, 'cache'),
        },
        wrapFlags: ['--upstream', upstream, '--provider', 'emu'],
      };
    },
  },
  piSpec({ name: 'pi', window: 24_000, believed: 128_000, maxTokens: 16_000, task: TASK }),
];

/**
 * pi told a 32,768-token window (and a 4,096-token output cap) against a vLLM server that enforces
 * 8,192, on a 12-step task: nine 300-line files, each close to half the window in the server's
 * tokens, so that direct the first read already passes the window with the cap, and the files
 * together pass it several times over. Through Spillway every cut is needed: old results elided, old turns pruned, the newest
 * read shortened.
 */
export const PI_SMALL_WINDOW_SPEC = piSpec({
  name: 'pi',
  window: 8_192,
  believed: 32_768,
  maxTokens: 4_096,
  task: notesTask({ count: 9, lines: 300 }),
});
