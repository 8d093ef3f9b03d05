/**
 * The fast path's figures: the proxy beside its peers (bench/results/proxy-peers.json), the README's
 * usage with bodies parsed anew against the tool loop's same objects (fresh-bodies.json), and the
 * command line's start-up (startup.json).
 */
import type { FreshBodiesResult } from '../fresh-bodies.js';
import type { PeersPhase, ProxyPeersResult } from '../proxy-peers.js';
import type { StartupFigure } from '../startup.js';
import { count, fixed, table, times } from './format.js';

export type { FreshBodiesResult, ProxyPeersResult };

export interface StartupResult {
  rounds: number;
  runs: number;
  figures: StartupFigure[];
}

const cpu = (phase: PeersPhase) =>
  phase.proxyCpuMs === undefined ? '–' : `${fixed(phase.proxyCpuMs, 2)} ms`;

/** Per setting: each path's requests per second, Spillway's ratios, its added latency and CPU time. */
export function proxyPeersTable(result: ProxyPeersResult): string {
  const rows = result.settings.map((setting) => {
    const { direct, spillway } = setting.targets;
    const passThrough = setting.targets['pass-through'];
    return [
      setting.stream ? 'streaming' : 'not streaming',
      count(setting.clients),
      `${count(direct.requestsPerSecond)} / ${count(passThrough.requestsPerSecond)} / ${count(spillway.requestsPerSecond)}`,
      `${fixed(setting.throughputVsPassThrough, 2)}× (${fixed(setting.throughputVsPassThroughRange[0], 2)}–${fixed(setting.throughputVsPassThroughRange[1], 2)})`,
      `${fixed(setting.throughputVsDirect, 2)}×`,
      `${fixed(setting.addedP50Ms, setting.clients === 1 ? 2 : 0)} ms`,
      `${cpu(passThrough)} / ${cpu(spillway)}`,
    ];
  });
  return table(
    [
      'responses',
      'clients',
      'requests/s: direct / pass-through / Spillway',
      'Spillway ÷ pass-through (lowest–highest round)',
      'Spillway ÷ direct',
      'p50 added to direct',
      'proxy CPU per request: pass-through / Spillway',
    ],
    rows,
  );
}

/** How Spillway's CPU per request fell over its warm-up: the first and last batch, each mode. */
function warmUpText(warmUp: ProxyPeersResult['warmUp']): string {
  if (warmUp === undefined || warmUp.plain.length === 0 || warmUp.stream.length === 0) return '';
  const fell = (batches: number[]) =>
    `from ${fixed(batches[0] as number, 2)} to ${fixed(batches.at(-1) as number, 2)} ms`;
  return ` Before the rounds every path took ${count(warmUp.requests)} requests of each body, 16 clients at a time: V8 optimizes Spillway's per-request code over its first thousands of requests, and its CPU per request fell ${fell(warmUp.plain)} not streaming, then ${fell(warmUp.stream)} streaming (first and last batch of ${count(warmUp.batch)}).`;
}

/** The request, the rounds, the warm-up, and what the proxy's own histogram says. */
export function proxyPeersSetting(result: ProxyPeersResult): string {
  return `The request: ${count(result.toolTurns)} tool turns, ${count(result.promptTokens)} prompt tokens (the emulator's count), ${count(result.requestBytes / 1_024, 1)} KB, to ${result.model} with a ${count(result.window)}-token window. Medians of ${count(result.rounds)} rounds in which the three paths take turns; one client is timed one request at a time (no queueing), more clients by autocannon, each run timed to its last response. The proxy's own \`spillway_proxy_added_latency_seconds\` histogram puts its time at ${fixed(result.proxyReportedMeanMs, 2)} ms a request (mean); the upstream saw ${count(result.duplicated)} request${result.duplicated === 1 ? '' : 's'} twice.${warmUpText(result.warmUp)}`;
}

/**
 * Per checkpoint: the README's usage per send, with the body's bytes, its text, it parsed and the
 * caller's own wire messages, beside the same-objects path.
 */
export function freshBodiesTable(result: FreshBodiesResult): string {
  const rows = result.points.map((point) => [
    count(point.turns),
    count(point.messages),
    `${fixed(point.bytesMs, 2)} ms (${fixed(point.bytesRatio, 2)}×)`,
    `${fixed(point.textMs, 2)} ms (${fixed(point.textRatio, 2)}×)`,
    `${fixed(point.freshMs, 2)} ms (${fixed(point.ratio, 2)}×)`,
    `${fixed(point.decodeMs, 2)} ms / ${fixed(point.parseMs, 2)} ms`,
    `${fixed(point.ownMs, 2)} ms (${fixed(point.ownRatio, 2)}×)`,
    `${fixed(point.sameMs, 2)} ms`,
  ]);
  return table(
    [
      'turns',
      'messages',
      "`manager.fit(fromOpenAIChat(bytes))`, the body's bytes (÷ same)",
      "`manager.fit(fromOpenAIChat(text))`, the body's text (÷ same)",
      '`manager.fit(fromOpenAIChat(body))`, the body parsed by the caller (÷ same)',
      "the caller's decoding of the bytes / `JSON.parse` of the text",
      "`manager.fit(fromOpenAIChat(body))`, the caller's own wire messages appended (÷ same)",
      'the same message objects appended',
    ],
    rows,
  );
}

/** How the per-send cost grows, and the totals over the whole growth. */
export function freshBodiesGrowth(result: FreshBodiesResult): string {
  const [before, last] = result.points.slice(-2);
  if (before === undefined || last === undefined) return '';
  return `From ${count(before.turns)} to ${count(last.turns)} turns the per-send cost of the README's usage grows ${times(result.growthBytes)} with the body's bytes, ${times(result.growthText)} with its text, ${times(result.growthFresh)} with it parsed and ${times(result.growthOwn)} with the caller's own messages (the same objects: ${times(result.growthSame)}); over all ${count(last.turns)} sends they cost ${fixed(result.totalBytesSeconds, 2)} s, ${fixed(result.totalTextSeconds, 2)} s, ${fixed(result.totalFreshSeconds, 2)} s and ${fixed(result.totalOwnSeconds, 2)} s of CPU against ${fixed(result.totalSameSeconds, 2)} s. Window ${count(result.window)}; ${result.clock}; per-send figures are the medians of the sends just before each checkpoint, then of ${count(result.rounds)} rounds, each path in a process of its own and the paths taking turns going first. The bytes and text paths' time includes reading the body; it does not include the caller's decoding of the bytes into text (for the text path), nor its parse (for the parsed path), shown beside them.`;
}

/** The README's usage with an agent's tool list after the messages, when the results have it. */
export function freshBodiesToolList(result: FreshBodiesResult): string {
  const list = result.toolList;
  if (list === undefined) return '';
  return `With an agent's tool list after the messages (${count(list.tools)} tools of three MCP servers, ${fixed(list.kilobytes, 1)} KB, sent with every body), at ${count(list.turns)} turns \`manager.fit(fromOpenAIChat(bytes))\` costs ${fixed(list.bytesMs, 2)} ms a send against ${fixed(list.sameMs, 2)} ms for the same objects (${fixed(list.bytesRatio, 2)}×, the median of the rounds' ratios).`;
}

/** CPU time of each start-up beside `node -e 0`. */
export function startupTable(result: StartupResult): string {
  const rows = result.figures.map((figure) => [
    `\`${figure.command}\``,
    `${fixed(figure.cpuMs, 0)} ms`,
    `${fixed(figure.vsNode, 2)}×`,
    `${fixed(figure.wallMs, 0)} ms`,
  ]);
  return `${table(['process', 'CPU time', '× `node -e 0`', 'wall time'], rows)}\n\nMedians of ${count(result.rounds)} rounds of ${count(result.runs)} runs each, from the built package (dist/).`;
}
