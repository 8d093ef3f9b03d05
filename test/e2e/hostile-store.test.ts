/**
 * One SQLite store, many writers: real processes appending turns at once, a writer killed with
 * SIGKILL again and again while the others write, and parallel `spillway chat -p` runs sharing the
 * default store. Not one write may fail for a lock, and no committed turn may be lost or split.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../src/emulator/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { recordHostile, writeHostileResults } from '../support/hostile-results.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const loader = join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs');
const directory = mkdtempSync(join(tmpdir(), 'spillway-hostile-store-'));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
  writeHostileResults(fileURLToPath(import.meta.url));
});

interface ContenderResult {
  id: string;
  appended: number;
  failed: number;
  errors: Record<string, number>;
}

function contender(path: string, count: number, name: string): Promise<ContenderResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', loader, join(root, 'test/fixtures/store-contender.ts'), path, String(count), name],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as ContenderResult);
      else reject(new Error(`contender ${name} exited with ${code}: ${out}`));
    });
  });
}

/** Runs the crash test's writer on its own session and kills it with SIGKILL after `afterMs`. */
function killedWriter(path: string, sessionId: string, seed: number, afterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', loader, join(root, 'test/fixtures/store-writer.ts'), path, sessionId, String(seed)],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let killed = false;
    child.stdout.on('data', () => {
      if (killed) return;
      killed = true;
      setTimeout(() => child.kill('SIGKILL'), afterMs);
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve();
      else reject(new Error(`writer ended with ${signal ?? _code} instead of being killed`));
    });
  });
}

/** Every turn of a contender's session is there, whole and in order. */
function checkContender(store: SqliteSessionStore, result: ContenderResult, name: string): void {
  const contents = store.liveMessages(result.id).map(({ message }) => message.content as string);
  expect(contents).toHaveLength(result.appended * 2);
  contents.forEach((content, index) => {
    const turn = Math.floor(index / 2) + 1;
    expect(content).toBe(`${name}:${turn}:${index % 2 === 0 ? 'question' : 'answer'}`);
  });
  expect(store.usage(result.id)).toHaveLength(result.appended);
}

describe('one session store, several writing processes', () => {
  it('loses no appendTurn to a lock under three concurrent writers', async () => {
    const path = join(directory, 'contended.db');
    new SqliteSessionStore(path).close();
    const count = 1_500;
    const names = ['first', 'second', 'third'];
    const results = await Promise.all(names.map((name) => contender(path, count, name)));
    const store = new SqliteSessionStore(path);
    results.forEach((result, index) => {
      expect(result.errors).toEqual({});
      expect(result.failed).toBe(0);
      checkContender(store, result, names[index] as string);
    });
    store.close();
    recordHostile('store_writers', {
      writers: names.length,
      append_turn_calls: count * names.length,
      append_turn_failed: results.reduce((sum, result) => sum + result.failed, 0),
    });
  }, 180_000);

  it('keeps every committed turn whole while a writer is killed with SIGKILL again and again', async () => {
    const path = join(directory, 'killed.db');
    const setup = new SqliteSessionStore(path);
    const { id: victim } = setup.createSession({ title: 'victim' });
    setup.close();
    const count = 600;
    const others = Promise.all(['left', 'right'].map((name) => contender(path, count, name)));
    const kills = 8;
    for (let seed = 1; seed <= kills; seed++) await killedWriter(path, victim, seed, seed * 7);
    const results = await others;
    const store = new SqliteSessionStore(path);
    results.forEach((result, index) => {
      expect(result.failed).toBe(0);
      checkContender(store, result, index === 0 ? 'left' : 'right');
    });
    // The killed writer's turns restart at 1 after each kill; each turn it committed is whole.
    const sizes = new Map<string, { size: number; seen: number }>();
    store.liveMessages(victim).forEach(({ message, turnId }) => {
      const [, , position] = (message.content as string).split(':') as [string, string, string];
      const size = Number(position.split('/')[1]);
      const entry = sizes.get(`${turnId}#${size}`) ?? { size, seen: 0 };
      entry.seen++;
      sizes.set(`${turnId}#${size}`, entry);
    });
    for (const { size, seen } of sizes.values()) expect(seen % size).toBe(0);
    store.close();
    recordHostile('store_sigkill', {
      kills,
      concurrent_writers: 2,
      append_turn_calls: count * 2,
      append_turn_failed: results.reduce((sum, result) => sum + result.failed, 0),
      lost_turns: results.reduce((sum, result) => sum + (count - result.appended), 0),
    });
  }, 180_000);
});

describe('parallel spillway chat -p runs on one store', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({
      profile: 'vllm',
      contextLength: 32_768,
      // Several tool rounds per run, so the runs' turns are written while the others write theirs.
      script: [
        ...Array.from({ length: 8 }, (_, round) => ({
          text: `Reading part ${round}.`,
          toolCalls: [{ name: 'read_file', arguments: { path: `notes-${round}.txt` } }],
        })),
        { text: 'Done.' },
      ],
    });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  function chat(store: string, index: number): Promise<{ status: number | null; stderr: string }> {
    const cwd = mkdtempSync(join(directory, `chat-${index}-`));
    const env: NodeJS.ProcessEnv = { ...process.env, SPILLWAY_STORE: store, HOME: cwd };
    for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'SPILLWAY_API_KEY', 'XDG_CONFIG_HOME'])
      delete env[key];
    return new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          loader,
          join(root, 'src/cli/bin.ts'),
          'chat',
          '--base-url',
          `${emulator.url}/v1`,
          '--model',
          'Qwen/Qwen2.5-7B-Instruct',
          '-p',
          `Summarize the notes (${index}).`,
        ],
        { cwd, env },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stderr }));
    });
  }

  it('all succeed, and every session has its turns', async () => {
    const store = join(directory, 'shared-sessions.db');
    const runs = 6;
    const results = await Promise.all(Array.from({ length: runs }, (_, index) => chat(store, index)));
    for (const result of results) expect(result, result.stderr).toMatchObject({ status: 0 });
    const sessions = new SqliteSessionStore(store);
    const listed = sessions.listSessions({ limit: 100 });
    expect(listed).toHaveLength(runs);
    for (const session of listed) expect(session.messageCount).toBeGreaterThanOrEqual(4);
    sessions.close();
    recordHostile('parallel_chats', {
      runs,
      succeeded: results.filter((result) => result.status === 0).length,
    });
  }, 120_000);
});
