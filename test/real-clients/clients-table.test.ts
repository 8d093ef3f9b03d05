import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENTS_TABLES, readClientsResults, renderClientsTable } from './clients-results.js';

/** The page the client tables live on (scripts/clients-table.ts writes them there). */
const README = new URL('../../docs/agents.md', import.meta.url);

describe('the clients tables of docs/agents.md', () => {
  it.each(CLIENTS_TABLES)('$marker is the table made from its committed results', ({ marker, path }) => {
    const readme = readFileSync(README, 'utf8');
    const startMarker = `<!-- ${marker}:start -->`;
    const start = readme.indexOf(startMarker);
    const end = readme.indexOf(`<!-- ${marker}:end -->`);
    expect(start).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    expect(readme.slice(start + startMarker.length, end).trim()).toBe(
      renderClientsTable(readClientsResults(path), path),
    );
  });

  it.each(CLIENTS_TABLES)(
    '$marker shows every through-Spillway run completing, none doing worse than direct',
    ({ path }) => {
      const results = readClientsResults(path);
      for (const { client } of results.clients) {
        const direct = results.runs.find((run) => run.client === client && run.mode === 'direct');
        const through = results.runs.find((run) => run.client === client && run.mode === 'spillway');
        expect({ client, completed: through?.completed }).toEqual({ client, completed: true });
        expect(through?.steps ?? 0).toBe(results.taskSteps);
        expect(through?.steps ?? 0).toBeGreaterThanOrEqual(direct?.steps ?? 0);
      }
    },
  );
});
