/**
 * @module
 * Every figure the README shows, drawn from bench/results/*.json: the README's generated sections
 * (`npm run readme:figures`, checked by `npm run check:readme`) and the tables `npm run bench` and
 * `npm run eval` print are the same renderings.
 */
import type { RecoveryResult } from '../../eval/recovery/index.js';
import type { ClientsResults } from '../../test/real-clients/clients-results.js';
import {
  type ClassifierResult,
  type ClassifyThroughput,
  classifierFixtureTable,
  classifierMisses,
  classifierPeerTable,
  classifyThroughput,
} from './classifier.js';
import {
  type ChatResult,
  type CliResult,
  chatTranscript,
  classifyExample,
  demoJson,
  demoOllamaTranscript,
  demoTranscript,
  estimateExample,
  estimateVersusReal,
  fitExample,
} from './cli.js';
import { agentsTable } from './clients-agents.js';
import {
  type BoundedSend,
  boundedSendLine,
  type EstimateThroughput,
  type EstimatorResult,
  estimateThroughput,
  estimatorClassTable,
  estimatorHeldOutTable,
  estimatorSummary,
} from './estimator.js';
import { type ExactCountersResult, exactCountersTable } from './exact-counters.js';
import { clientsHeadline, type HeadlineClients } from './headline.js';
import { type HostileResult, hostileSummary, hostileTable } from './hostile.js';
import { type InstallResult, installTable } from './install.js';
import { type KeptResult, keptSummary, keptTables } from './kept.js';
import { type LimitsResult, limitsExample, limitsProbe } from './limits.js';
import { type MemoryResult, memorySummary } from './memory.js';
import { type PerSendResult, perSendComplexity, perSendTables } from './per-send.js';
import {
  type FreshBodiesResult,
  freshBodiesGrowth,
  freshBodiesTable,
  freshBodiesToolList,
  type ProxyPeersResult,
  proxyPeersSetting,
  proxyPeersTable,
  type StartupResult,
  startupTable,
} from './performance.js';
import { recoveryClaims, recoveryTable, sameRequestsTable } from './recovery.js';
import {
  type ProxyResult,
  proxyAccounting,
  proxyTable,
  type SchemasResult,
  schemaDeferral,
  schemaFloorTable,
} from './schemas-proxy.js';
import { type SuitesResult, suitesTable } from './suites.js';
import { runwayFrontierTable, type TranscriptsResult, transcriptsTable } from './transcripts.js';

export { type ResultStamp, sourceLine } from './format.js';

/** Parsed result files by name (`per-send.json`), read on demand. */
export type Results = (file: string) => unknown;

export interface Figure {
  /** The README marker's name: `<!-- figures:NAME -->` … `<!-- /figures:NAME -->`. */
  name: string;
  /** The result files it is drawn from. */
  files: string[];
  render: (results: Results) => string;
}

function figure<T>(name: string, file: string, render: (result: T) => string): Figure {
  return { name, files: [file], render: (results) => render(results(file) as T) };
}

const paragraphs = (...parts: string[]) => parts.filter((part) => part !== '').join('\n\n');

export const FIGURES: Figure[] = [
  figure<HeadlineClients>('headline', 'clients-agents.json', clientsHeadline),
  figure<ClientsResults>('clients-agents', 'clients-agents.json', agentsTable),
  figure<CliResult>('estimate-example', 'cli.json', estimateExample),
  figure<CliResult>('fit-example', 'cli.json', fitExample),
  figure<ChatResult>('chat', 'chat.json', chatTranscript),
  figure<CliResult>('demo', 'cli.json', demoTranscript),
  figure<CliResult>('demo-json', 'cli.json', demoJson),
  figure<CliResult>('demo-ollama', 'cli.json', demoOllamaTranscript),
  figure<CliResult>('classify-example', 'cli.json', classifyExample),
  figure<CliResult>('estimator-example', 'cli.json', estimateVersusReal),
  figure<EstimatorResult>('estimator-classes', 'eval-estimator.json', (result) =>
    paragraphs(estimatorClassTable(result), estimatorSummary(result)),
  ),
  figure<EstimatorResult>('estimator-held-out', 'eval-estimator.json', estimatorHeldOutTable),
  {
    name: 'estimator-cost',
    files: ['estimate.json', 'bounded-send.json'],
    render: (results) =>
      `${estimateThroughput(results('estimate.json') as EstimateThroughput)} ${boundedSendLine(results('bounded-send.json') as BoundedSend)}`,
  },
  figure<ExactCountersResult>('exact-counters', 'exact-counters.json', exactCountersTable),
  figure<LimitsResult>('limits-example', 'limits.json', limitsExample),
  figure<LimitsResult>('limits-probe', 'limits.json', limitsProbe),
  figure<ClassifierResult>('classifier-fixtures', 'eval-classifier.json', (result) =>
    paragraphs(classifierFixtureTable(result), `Leave-one-provider-out misses: ${classifierMisses(result)}.`),
  ),
  figure<ClassifyThroughput>('classify-throughput', 'classify.json', classifyThroughput),
  figure<SchemasResult>('schema-floor', 'schemas.json', (result) =>
    paragraphs(schemaFloorTable(result), schemaDeferral(result)),
  ),
  figure<ProxyPeersResult>('proxy-peers', 'proxy-peers.json', (result) =>
    paragraphs(proxyPeersTable(result), proxyPeersSetting(result)),
  ),
  figure<FreshBodiesResult>('fresh-bodies', 'fresh-bodies.json', (result) =>
    paragraphs(freshBodiesTable(result), freshBodiesGrowth(result), freshBodiesToolList(result)),
  ),
  figure<StartupResult>('cli-startup', 'startup.json', startupTable),
  figure<ProxyResult>('proxy-overhead', 'proxy.json', (result) =>
    paragraphs(proxyTable(result), proxyAccounting(result)),
  ),
  figure<MemoryResult>('bench-memory', 'memory.json', memorySummary),
  figure<HostileResult>('hostile', 'hostile.json', (result) =>
    paragraphs(hostileSummary(result), hostileTable(result)),
  ),
  figure<EstimateThroughput>('bench-estimate', 'estimate.json', estimateThroughput),
  figure<PerSendResult>('bench-per-send', 'per-send.json', (result) =>
    paragraphs(perSendTables(result), perSendComplexity(result)),
  ),
  figure<EstimatorResult>('eval-estimator', 'eval-estimator.json', estimatorSummary),
  figure<ClassifierResult>('eval-classifier', 'eval-classifier.json', classifierPeerTable),
  figure<RecoveryResult>('eval-recovery', 'recovery.json', (result) =>
    paragraphs(recoveryTable(result), sameRequestsTable(result), recoveryClaims(result)),
  ),
  figure<TranscriptsResult>('eval-transcripts', 'eval-transcripts.json', (result) =>
    paragraphs(transcriptsTable(result), runwayFrontierTable(result)),
  ),
  figure<InstallResult>('install', 'install.json', installTable),
  figure<KeptResult>('kept', 'eval-kept.json', keptTables),
  figure<KeptResult>('kept-summary', 'eval-kept.json', keptSummary),
  figure<SuitesResult>('suites', 'suites.json', suitesTable),
];

/** What `npm run bench` / `npm run eval` print for one result: every figure drawn from it alone. */
export function printFigures(file: string, result: unknown): string | undefined {
  const own = FIGURES.filter((entry) => entry.files.length === 1 && entry.files[0] === file);
  if (own.length === 0) return undefined;
  const printed: string[] = [];
  for (const text of own.map((entry) => entry.render(() => result)))
    if (!printed.some((earlier) => earlier.includes(text))) printed.push(text);
  return printed.join('\n\n');
}
