/**
 * Writes the README's clients table from bench/results/clients.json (between the
 * `<!-- clients-table:start -->` and `<!-- clients-table:end -->` markers). Run it after
 * `SPILLWAY_UPDATE_RESULTS=1 npx vitest run test/e2e/real-clients.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { readClientsResults, renderClientsTable } from '../test/real-clients/clients-results.js';

const README = new URL('../README.md', import.meta.url);
const START = '<!-- clients-table:start -->';
const END = '<!-- clients-table:end -->';
const readme = readFileSync(README, 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start === -1 || end < start) throw new Error(`README.md has no ${START} … ${END} section`);
const table = renderClientsTable(readClientsResults());
writeFileSync(README, `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`);
process.stdout.write(`${table}\n`);
