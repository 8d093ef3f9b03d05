/**
 * Writes the client tables of docs/agents.md from their committed results (each between its
 * `<!-- marker:start -->` and `<!-- marker:end -->` markers: `clients-table` from
 * bench/results/clients.json, `clients-pi-small-window` from bench/results/clients-pi-small-window.json).
 * Run it after the client tests have written their results under `SPILLWAY_UPDATE_RESULTS=1`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  CLIENTS_TABLES,
  readClientsResults,
  renderClientsTable,
} from '../test/real-clients/clients-results.js';

const README = new URL('../docs/agents.md', import.meta.url);
let readme = readFileSync(README, 'utf8');
for (const { marker, path } of CLIENTS_TABLES) {
  const start = readme.indexOf(`<!-- ${marker}:start -->`);
  const end = readme.indexOf(`<!-- ${marker}:end -->`);
  if (start === -1 || end < start)
    throw new Error(`docs/agents.md has no <!-- ${marker}:start --> … <!-- ${marker}:end --> section`);
  const table = renderClientsTable(readClientsResults(path), path);
  const head = readme.slice(0, start + `<!-- ${marker}:start -->`.length);
  readme = `${head}\n${table}\n${readme.slice(end)}`;
  process.stdout.write(`${table}\n\n`);
}
writeFileSync(README, readme);
