/** The tool-schema floor (schemas.json) and the proxy's overhead (proxy.json). */
import type { ProxyBenchResult } from '../proxy.js';
import { count, fixed, percent, table } from './format.js';

export interface SchemasResult {
  floors: Array<{
    setup: string;
    tools_sent: number;
    estimated_tokens: number;
    rendered_o200k_tokens: number;
  }>;
  deferred_over_full: { estimated: number; rendered_o200k: number };
}

export function schemaFloorTable(result: SchemasResult): string {
  return table(
    ['setup', 'tools sent', 'floor, estimated', 'floor, rendered'],
    result.floors.map((floor) => [
      floor.setup,
      String(floor.tools_sent),
      count(floor.estimated_tokens),
      count(floor.rendered_o200k_tokens),
    ]),
  );
}

export function schemaDeferral(result: SchemasResult): string {
  return `Deferral takes the 150-tool floor to ${percent(result.deferred_over_full.estimated)} of its full size (${percent(result.deferred_over_full.rendered_o200k)} rendered).`;
}

export type ProxyResult = ProxyBenchResult;

export function proxyTable(result: ProxyResult): string {
  const ms = (value: number) => fixed(value, value < 10 ? 2 : 0);
  const { sequential } = result;
  return table(
    ['', 'direct p50 / p99', 'proxied p50 / p99', 'added p50 / p99', 'throughput, proxied / direct'],
    [
      [
        '1 client',
        `${ms(sequential.direct.p50Ms)} / ${ms(sequential.direct.p99Ms)} ms`,
        `${ms(sequential.proxied.p50Ms)} / ${ms(sequential.proxied.p99Ms)} ms`,
        `${ms(sequential.addedP50Ms)} / ${ms(sequential.addedP99Ms)} ms`,
        `${count(sequential.proxied.requestsPerSecond)} / ${count(sequential.direct.requestsPerSecond)} req/s`,
      ],
      [
        `${result.connections} clients`,
        `${ms(result.direct.p50Ms)} / ${ms(result.direct.p99Ms)} ms`,
        `${ms(result.proxied.p50Ms)} / ${ms(result.proxied.p99Ms)} ms`,
        `${ms(result.addedP50Ms)} / ${ms(result.addedP99Ms)} ms`,
        `${count(result.proxied.requestsPerSecond)} / ${count(result.direct.requestsPerSecond)} req/s (${fixed(result.throughputRatio, 2)})`,
      ],
    ],
  );
}

export function proxyAccounting(result: ProxyResult): string {
  return `Lost ${result.lost}, duplicated ${result.duplicated} (${count(result.sent)} sent through the proxy, ${count(result.upstreamSaw)} seen upstream), on a ${count(result.promptTokens)}-token conversation. The proxy's own histogram puts its time at ${fixed(result.proxyReportedMeanMs, 2)} ms a request (mean); the rest of the added latency is the second loopback hop and the three processes sharing the machine's cores.`;
}
