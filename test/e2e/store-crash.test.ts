import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../src/store/index.js';
import { createRandom } from '../corpus/random.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const writer = join(root, 'test', 'fixtures', 'store-writer.ts');
const directory = mkdtempSync(join(tmpdir(), 'spillway-crash-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Starts the writer, kills it with SIGKILL after it committed `afterCommits` turns plus a random delay. */
function runAndKill(path: string, sessionId: string, seed: number): Promise<number> {
  const random = createRandom(seed);
  const afterCommits = random.int(1, 40);
  const extraDelay = random.int(0, 15);
  return new Promise((resolve, reject) => {
    // node itself (with tsx as a loader), not the tsx wrapper, so that SIGKILL hits the writing process.
    const child = spawn(process.execPath, ['--import', 'tsx', writer, path, sessionId, String(seed)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let lastCommitted = 0;
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        lastCommitted = Number(line.split(' ')[1]);
        if (lastCommitted === afterCommits) setTimeout(() => child.kill('SIGKILL'), extraDelay);
      }
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL')
        reject(new Error(`writer ended with ${signal ?? _code} instead of being killed`));
      else resolve(lastCommitted);
    });
  });
}

describe('the SQLite store under SIGKILL', () => {
  it('keeps every committed turn whole and no partial one, over many seeded kills', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const path = join(directory, `crash-${seed}.db`);
      const setup = new SqliteSessionStore(path);
      const { id } = setup.createSession();
      setup.close();
      const lastCommitted = await runAndKill(path, id, seed);
      const store = new SqliteSessionStore(path);
      const turns = new Map<number, { size: number; seen: number }>();
      for (const { message } of store.liveMessages(id)) {
        const [, turn, position] = (message.content as string).split(':') as [string, string, string];
        const [, size] = position.split('/').map(Number) as [number, number];
        const entry = turns.get(Number(turn)) ?? { size, seen: 0 };
        entry.seen++;
        turns.set(Number(turn), entry);
      }
      const numbers = [...turns.keys()].sort((a, b) => a - b);
      // Every turn the writer reported is there, the turns are consecutive, and none is partial.
      expect(numbers.length).toBeGreaterThanOrEqual(lastCommitted);
      expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => index + 1));
      for (const [turn, { size, seen }] of turns) expect(seen, `turn ${turn} of seed ${seed}`).toBe(size);
      expect(store.usage(id)).toHaveLength(numbers.length);
      expect(store.loadState(id)).toEqual({ lastTurn: numbers.length });
      store.close();
    }
  }, 120_000);
});
