import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readClientsResults, renderClientsTable } from './clients-results.js';

const README = new URL('../../README.md', import.meta.url);
const START = '<!-- clients-table:start -->';
const END = '<!-- clients-table:end -->';

describe('the README clients table', () => {
  it('is the table made from bench/results/clients.json', () => {
    const readme = readFileSync(README, 'utf8');
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    expect(start).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    expect(readme.slice(start + START.length, end).trim()).toBe(renderClientsTable(readClientsResults()));
  });

  it('shows every through-Spillway run completing, none doing worse than direct', () => {
    const results = readClientsResults();
    for (const { client } of results.clients) {
      const direct = results.runs.find((run) => run.client === client && run.mode === 'direct');
      const through = results.runs.find((run) => run.client === client && run.mode === 'spillway');
      expect({ client, completed: through?.completed }).toEqual({ client, completed: true });
      expect(through?.steps ?? 0).toBeGreaterThanOrEqual(direct?.steps ?? 0);
    }
  });
});
