/**
 * `spillway wrap` with the real Codex CLI (the pinned release, from the npm registry) on its
 * built-in `openai` provider: `--check` makes its cheapest call and it arrives at the proxy, pointed
 * there with `-c openai_base_url` and told the vLLM emulator's window; and a Codex whose own
 * arguments point it back at the upstream is reported as going around the proxy while it runs.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { installClients } from '../real-clients/install-clients.js';
import { runProcess } from '../support/run-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const MODEL = 'Qwen/Qwen2.5-7B-Instruct';

const open: Emulator[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((emulator) => emulator.close()));
});

/**
 * A home whose Codex uses its built-in provider pointed at `upstream` in its own config, or with
 * `custom` a provider of the user's own (`emu`).
 */
function codexHome(upstream: string, custom = false): { home: string; env: NodeJS.ProcessEnv } {
  const home = mkdtempSync(join(tmpdir(), 'spillway-codex-'));
  const codex = join(home, '.codex');
  mkdirSync(codex);
  const provider = [
    'model_provider = "emu"',
    '[model_providers.emu]',
    'name = "emu"',
    `base_url = "${upstream}/v1"`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
  ];
  const config = custom
    ? [`model = "${MODEL}"`, ...provider]
    : [`model = "${MODEL}"`, `openai_base_url = "${upstream}/v1"`];
  writeFileSync(join(codex, 'config.toml'), `${config.join('\n')}\n`);
  const { bin } = installClients();
  return {
    home,
    env: {
      ...process.env,
      HOME: home,
      CODEX_HOME: codex,
      OPENAI_API_KEY: 'sk-wrap-codex',
      PATH: `${bin}:${process.env.PATH ?? ''}`,
    },
  };
}

function wrap(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  return runProcess(process.execPath, ['--import', loader, join(root, 'src/cli/bin.ts'), 'wrap', ...args], {
    cwd,
    env,
    input: '',
  });
}

describe('spillway wrap with the real Codex CLI on its built-in provider', () => {
  it('--check: its call reaches the proxy; off OpenAI it is told no window, since it would compact there', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 24_000, model: MODEL });
    open.push(emulator);
    const { home, env } = codexHome(emulator.url);
    const { status, stdout, stderr } = await wrap(['--check', 'codex'], env, home);
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect({ status, report }).toMatchObject({
      status: 0,
      report: {
        agent: 'codex',
        arrived: true,
        route: '-c openai_base_url',
        told: [],
      },
    });
    expect(report.requests).toContain('POST /v1/responses');
    expect(report.untold).toMatch(/compacts on OpenAI/);
    expect(stderr).not.toContain('wrap_bypass');
    expect(emulator.requests.some((record) => record.path === '/v1/responses' && record.status === 200)).toBe(
      true,
    );
  }, 180_000);

  it('--check with a provider of the user’s own: told the server’s window and where to compact', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 24_000, model: MODEL });
    open.push(emulator);
    const { home, env } = codexHome(emulator.url, true);
    const { status, stdout } = await wrap(['--upstream', emulator.url, '--check', 'codex'], env, home);
    expect({ status, report: JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') }).toMatchObject({
      status: 0,
      report: {
        arrived: true,
        route: '-c model_providers.emu.base_url',
        told: [
          { setting: 'model_context_window', value: 24_000 },
          { setting: 'model_auto_compact_token_limit', value: 21_600 },
        ],
      },
    });
  }, 180_000);

  it('reports a Codex whose own -c sends it straight to the upstream', async () => {
    const emulator = await startEmulator({ profile: 'vllm', contextLength: 24_000, model: MODEL });
    open.push(emulator);
    const { home, env } = codexHome(emulator.url);
    // Codex takes the last -c for a key: this one undoes wrap's.
    const { stdout, stderr } = await wrap(
      ['--check', 'codex', '-c', `openai_base_url="${emulator.url}/v1"`],
      env,
      home,
    );
    const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
    expect(report.arrived).toBe(false);
    const findings = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event: string; finding?: string })
      .filter((line) => line.event === 'wrap_bypass')
      .map((line) => line.finding);
    expect(findings).toContain('no_request_at_exit');
    expect(emulator.requests.some((record) => record.path === '/v1/responses')).toBe(true);
  }, 180_000);
});
