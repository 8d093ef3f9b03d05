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

/** What an agent was given at launch under `spillway wrap` (see `record-launch.mjs`). */
export interface RecordedLaunch {
  args: string[];
  env: Record<string, string>;
  files: { piModels?: unknown; geminiSettings?: unknown };
}

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
  /** The window the agent was told under `spillway wrap`, read back from what it was given. */
  toldWindow(launch: RecordedLaunch): number | undefined;
  /** `false` where wrap tells this agent no window on purpose (see `agent-environment.ts`). */
  told?: false;
}

// Small readers of what a launch carries, for `toldWindow`.
const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const path = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((current, key) => record(current)[key], value);
const numberOr = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

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
const GEMINI_MODEL = 'gemini-2.5-pro';

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
        wrapFlags: ['--upstream', upstream],
      };
    },
    toldWindow: ({ files }) => {
      const models = path(files.piModels, 'providers', 'emu', 'models');
      const entry = Array.isArray(models) ? models.find((model) => record(model).id === QWEN) : undefined;
      return numberOr(record(entry).contextWindow);
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
    window: 28_000,
    believed: 200_000,
    task: TASK,
    setup: ({ home, upstream }) => {
      // A gateway's window is the user's to state (the Anthropic API names none): marked hard, it
      // wins over the catalog's 200,000 for the model.
      const config = join(home, 'spillway.json');
      writeFileSync(config, JSON.stringify({ context_length: { value: 28_000, hard: true } }));
      return {
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
        wrapFlags: ['--config', config],
      };
    },
    toldWindow: ({ env }) => Number(env.CLAUDE_CODE_AUTO_COMPACT_WINDOW) || undefined,
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
      // Codex's built-in `openai` provider, pointed at the server in its own config.
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(
        join(codexHome, 'config.toml'),
        [`model = "${QWEN}"`, `openai_base_url = "${upstream}/v1"`, 'model_context_window = 128000', ''].join(
          '\n',
        ),
      );
      return {
        args: ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', TASK.prompt],
        env: { CODEX_HOME: codexHome, OPENAI_API_KEY: 'sk-suite', HOME: home },
        wrapFlags: [],
      };
    },
    toldWindow: ({ args }) => {
      const flag = args.find((arg) => arg.startsWith('model_context_window='));
      return flag === undefined ? undefined : Number(flag.split('=')[1]);
    },
    // Its built-in provider compacts on OpenAI's servers, which the emulator is not: told nothing.
    told: false,
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
        wrapFlags: ['--upstream', upstream],
      };
    },
    toldWindow: ({ env }) => {
      let content: unknown;
      try {
        content = JSON.parse(env.OPENCODE_CONFIG_CONTENT ?? '');
      } catch {
        return undefined;
      }
      return numberOr(path(content, 'provider', 'emu', 'models', QWEN, 'limit', 'context'));
    },
  },
  piSpec({ name: 'pi', window: 24_000, believed: 128_000, maxTokens: 16_000, task: TASK }),
  {
    name: 'Gemini CLI',
    package: '@google/gemini-cli',
    command: 'gemini',
    api: 'Gemini generateContent',
    profile: 'gemini',
    model: GEMINI_MODEL,
    window: 18_000,
    believed: 1_048_576,
    task: TASK,
    setup: ({ home, upstream }) => {
      // A user of the Gemini API with a key, who trusts the folder and sends no usage statistics.
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({
          security: { auth: { selectedType: 'gemini-api-key' } },
          privacy: { usageStatisticsEnabled: false },
        }),
      );
      return {
        args: ['-m', GEMINI_MODEL, '--yolo', '-p', TASK.prompt],
        env: {
          HOME: home,
          GEMINI_API_KEY: 'gemini-suite-key',
          GOOGLE_GEMINI_BASE_URL: upstream,
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
        },
        wrapFlags: [],
      };
    },
    // Told as the share of its built-in 1,048,576-token window at which it compresses: half the window.
    toldWindow: ({ files }) => {
      const threshold = numberOr(path(files.geminiSettings, 'model', 'compressionThreshold'));
      return threshold === undefined ? undefined : Math.round((threshold * 1_048_576) / 0.5);
    },
  },
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
