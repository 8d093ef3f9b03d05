/**
 * `spillway chat` as a person meets it in a terminal (tmux), against emulators started here: the
 * spinner while a reply is slow, a 60-column resize, one figure in the meter, /context and /limits,
 * /cost at configured prices, multi-line input and pastes, a reply typed ahead, text piped in,
 * resume with a replay and a model change, /model, and the errors for a missing key, a wrong
 * format, an empty prompt and failed runs.
 */
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { formatTokens } from '../../src/core/index.js';
import { type Emulator, type EmulatorOptions, startEmulator } from '../../src/emulator/index.js';
import { closedPort } from './closed-port.js';
import { createTerminal, hasTmux, occurrences } from './tmux-terminal.js';

const MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const terminal = createTerminal('chat-session');
const { waitFor, type, keys, paste, screen } = terminal;
const emulators: Emulator[] = [];

afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});
afterAll(() => terminal.close());

async function emulate(options: Partial<EmulatorOptions> = {}): Promise<Emulator> {
  const emulator = await startEmulator({
    profile: 'vllm',
    contextLength: 32_768,
    ...options,
  } as EmulatorOptions);
  emulators.push(emulator);
  return emulator;
}

/** A project directory, with a config when one is given. */
function project(config?: Record<string, unknown>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'spillway-session-e2e-')));
  if (config) writeFileSync(join(dir, 'spillway.config.json'), JSON.stringify(config));
  return dir;
}

function start(
  name: string,
  dir: string,
  args: string[] = [],
  extra: { before?: string; width?: number } = {},
) {
  terminal.start(name, {
    cwd: dir,
    args,
    env: { SPILLWAY_STORE: join(dir, 'sessions.db'), HOME: dir, XDG_CONFIG_HOME: dir },
    ...extra,
  });
}

/** The user messages of each chat request the emulator received. */
function prompts(emulator: Emulator): unknown[][] {
  return emulator.requests
    .filter((record) => record.chatNumber !== undefined)
    .map((record) =>
      ((record.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [])
        .filter((message) => message.role === 'user')
        .map((message) => message.content),
    );
}

describe.skipIf(!hasTmux)('spillway chat sessions in a terminal', () => {
  it('spins with the elapsed time and tokens while a reply is slow, and a resize leaves no stray prompt', async () => {
    const emulator = await emulate({
      script: [{ text: 'A slow but complete answer.' }],
      faults: [{ kind: 'slow-first-byte', requests: [1], delayMs: 4_000 }],
    });
    const dir = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    start('spin', dir);
    await waitFor('spin', '› ');
    type('spin', 'Take your time.');
    await waitFor('spin', /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \d+\.\ds · waiting for the reply · ≈[\d.]+k? tokens sent/);
    await waitFor('spin', /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [1-9]\d*\.\ds · waiting/);
    terminal.tmux('resize-window', '-t', 'spin', '-x', '60');
    const text = await waitFor(
      'spin',
      /A slow but complete answer\.[\s\S]*context [\d.]+k? \/ 33k[\s\S]*› $/m,
    );
    expect(occurrences(text, '›')).toBe(2);
    expect(text).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
  }, 60_000);

  it('shows one figure in the meter, /context and /limits, every budget figure, and the cost at the configured prices', async () => {
    const emulator = await emulate({
      profile: 'openai',
      model: 'gpt-4o',
      script: [{ toolCalls: [{ name: 'list_directory', arguments: {} }] }, { text: 'Looked.' }],
    });
    const dir = project({
      base_url: `${emulator.url}/v1`,
      model: 'gpt-4o',
      prices: { input: 2.5, cached_input: 1.25, output: 10 },
    });
    start('figures', dir, [], { width: 250 });
    await waitFor('figures', '› ');
    type('figures', 'Look around.');
    const meter =
      /context ([\d.]+k?) \/ 128k \(\d+%\) · budget [\d.]+k · schemas \d+ · session \$([\d.]+)/.exec(
        await waitFor('figures', /· session \$/),
      );
    type('figures', '/context');
    const context =
      /\n([\d,]+) of 128,000 tokens in the window \(\d+%\): the provider's count of the last request, ([\d,]+) tokens, and of its ([\d,]+)-token reply/.exec(
        await waitFor('figures', 'tokens in the window'),
      );
    const exact = Number(context?.[1]?.replace(/,/g, ''));
    expect(formatTokens(exact)).toBe(meter?.[1]);
    const chats = emulator.requests.filter((record) => record.chatNumber !== undefined);
    const last = chats.at(-1);
    expect(exact).toBe((last?.reportedPromptTokens ?? 0) + (last?.completionTokens ?? 0));
    type('figures', '/limits');
    const limits = await waitFor('figures', 'next reply');
    const figure = (label: string) =>
      Number(new RegExp(`${label} +([\\d,]+)`).exec(limits)?.[1]?.replace(/,/g, ''));
    expect(figure('window')).toBe(128_000);
    expect(figure('reserve')).toBe(1_024);
    expect(figure('prompt budget')).toBe(figure('window') - figure('reserve') - figure('safety margin'));
    expect(figure('in use now')).toBe(exact);
    type('figures', '/cost');
    const cost = await waitFor('figures', /cost +\$/);
    const prompt = chats.reduce((sum, record) => sum + (record.reportedPromptTokens ?? 0), 0);
    const completion = chats.reduce((sum, record) => sum + (record.completionTokens ?? 0), 0);
    expect(cost).toContain(
      `prompt tokens ${prompt.toLocaleString('en-US').padStart(11)}  cached 0 · written to the cache 0 · uncached ${prompt.toLocaleString('en-US')}`,
    );
    const dollars = (prompt * 2.5 + completion * 10) / 1_000_000;
    expect(cost).toMatch(new RegExp(`cost +\\$${dollars.toFixed(4).replace('.', '\\.')} `));
    expect(meter?.[2]).toBe(dollars.toFixed(4));
    expect(cost).not.toContain('stated no cache figure');
  }, 60_000);

  it('takes a line ending in a backslash and a paste as one message, and sends a line typed during a reply after it', async () => {
    const emulator = await emulate({
      script: {
        selectBy: 'request',
        replies: [{ text: 'one' }, { text: 'two' }, { text: 'three' }, { text: 'four' }],
      },
      faults: [{ kind: 'slow-first-byte', requests: [3], delayMs: 2_500 }],
    });
    const dir = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    start('lines', dir);
    await waitFor('lines', '› ');
    type('lines', 'first line \\');
    await waitFor('lines', '… ');
    type('lines', 'second line');
    await waitFor('lines', /\none\n/);
    paste('lines', 'alpha\nbeta\ngamma');
    keys('lines', 'Enter');
    await waitFor('lines', /\ntwo\n/);
    type('lines', 'Slow one.');
    await waitFor('lines', 'waiting for the reply');
    type('lines', 'typed ahead');
    await waitFor('lines', '· queued "typed ahead": sent after this reply');
    await waitFor('lines', /\nfour\n/);
    expect(prompts(emulator).at(-1)).toEqual([
      'first line \nsecond line',
      'alpha\nbeta\ngamma',
      'Slow one.',
      'typed ahead',
    ]);
  }, 60_000);

  it('runs text piped in as the prompt, and refuses an empty prompt without sending anything', async () => {
    const emulator = await emulate({ script: [{ text: 'Summary: two notes.' }] });
    const dir = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    start('piped', dir, [], { before: 'printf "Summarize the notes\\n" | ' });
    let text = await waitFor('piped', '[exited 0]');
    expect(text).toContain('Summary: two notes.');
    expect(prompts(emulator)).toEqual([['Summarize the notes']]);
    start('empty', dir, ['-p', '  ']);
    text = await waitFor('empty', '[exited 2]');
    expect(text).toContain('the prompt is empty; give the task with -p');
    start('empty-pipe', dir, [], { before: 'printf "" | ' });
    await waitFor('empty-pipe', '[exited 2]');
    expect(prompts(emulator)).toHaveLength(1);
  }, 60_000);

  it('replays the last turns on resume, warns under another model, and switches with /model', async () => {
    const emulator = await emulate({
      script: {
        selectBy: 'request',
        after: 'cycle',
        replies: [{ text: 'Noted: alpha.' }, { text: 'Noted: beta.' }],
      },
    });
    const dir = project({ base_url: `${emulator.url}/v1`, model: MODEL });
    start('first', dir);
    await waitFor('first', '› ');
    type('first', 'Remember alpha.');
    await waitFor('first', 'Noted: alpha.');
    type('first', 'Remember beta.');
    const id = /spillway chat --resume ([0-9a-f]{8})/.exec(
      await waitFor('first', 'Noted: beta.'),
    )?.[1] as string;
    type('first', '/quit');
    await waitFor('first', '[exited 0]');
    start('resumed', dir, ['--resume', id, '--model', 'other-model']);
    const text = await waitFor('resumed', '› ');
    expect(text).toMatch(
      /── the last 2 of 2 prompts ──\n› Remember alpha\.\nNoted: alpha\.\n› Remember beta\.\nNoted: beta\.\n──/,
    );
    expect(text).toContain(`· this session was started with ${MODEL}; it continues with other-model`);
    type('resumed', `/model ${MODEL}`);
    await waitFor('resumed', `· other-model → ${MODEL}: window 32,768`);
    type('resumed', 'And now?');
    await waitFor('resumed', /And now\?\nNoted: alpha\./);
    const models = emulator.requests
      .filter((record) => record.chatNumber !== undefined)
      .map((record) => (record.body as { model: string }).model);
    expect(models).toEqual([MODEL, MODEL, MODEL]);
  }, 60_000);

  it('explains a missing key, a wrong format and a refused key, and failed runs leave no session behind', async () => {
    const dir = project();
    start('nokey', dir, ['--model', 'gpt-4o', '-p', 'hi']);
    let text = await waitFor('nokey', '[exited 2]');
    expect(text).toContain('spillway chat: no API key for https://api.openai.com/v1: set OPENAI_API_KEY');
    expect(text).not.toContain('"code":"invalid_config"');

    const anthropic = await emulate({ profile: 'anthropic', script: [{ text: 'hello' }] });
    start('format', dir, ['--base-url', anthropic.url, '--model', 'claude-sonnet-4-5']);
    await waitFor('format', '› ');
    type('format', 'hi');
    text = await waitFor('format', 'use --format anthropic');
    expect(text).toMatch(
      new RegExp(
        `· ${anthropic.url.replace(/[.]/g, '\\.')} answered HTTP 404 \\(Not Found\\): this is an Anthropic Messages API`,
      ),
    );
    expect(text).not.toContain('spillway chat --resume');
    type('format', '/sessions');
    await waitFor('format', 'no sessions yet');
    type('format', '/quit');
    await waitFor('format', '[exited 0]');

    const port = await closedPort();
    start('unreachable', dir, ['--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'm', '-p', 'hi']);
    await waitFor('unreachable', '[exited 1]');
    start('list', dir, [
      '--base-url',
      `${anthropic.url}`,
      '--format',
      'anthropic',
      '--model',
      'claude-sonnet-4-5',
    ]);
    await waitFor('list', '› ');
    type('list', '/sessions');
    await waitFor('list', 'no sessions yet');
    expect(screen('list')).not.toMatch(/messages {2}/);
  }, 60_000);
});
