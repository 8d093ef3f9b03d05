/**
 * @module
 * The proxy's counters and its added-latency histogram, rendered in the Prometheus text exposition
 * format (version 0.0.4) for `GET /metrics`.
 */

/** Bucket bounds of the added-latency histogram, in seconds (0.5 ms … 1 s). */
export const LATENCY_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  const escapeValue = (value: string) =>
    value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  return `{${entries.map(([name, value]) => `${name}="${escapeValue(value)}"`).join(',')}}`;
}

class Counter {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  add(labels: Labels = {}, amount = 1): void {
    const key = labelText(labels);
    const entry = this.#values.get(key);
    if (entry) entry.value += amount;
    else this.#values.set(key, { labels, value: amount });
  }

  value(labels: Labels = {}): number {
    return this.#values.get(labelText(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    if (this.#values.size === 0) lines.push(`${this.name} 0`);
    for (const { labels, value } of this.#values.values())
      lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join('\n');
  }
}

class Gauge {
  #value = 0;
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(value: number): void {
    this.#value = value;
  }

  value(): number {
    return this.#value;
  }

  render(): string {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} gauge`,
      `${this.name} ${this.#value}`,
    ].join('\n');
  }
}

/**
 * What `GET /metrics` reports: requests by route and status, fits, prunes (and turns pruned),
 * recoveries by overflow kind and action, requests answered `context_length_exceeded`, upstream
 * errors by reason, store failures and the store's circuit breaker, and the latency the proxy adds
 * (its own time, upstream time excluded).
 *
 * @example
 * const metrics = new ProxyMetrics();
 * metrics.recoveries.add({ kind: 'budget', action: 'lower_max_tokens' });
 * metrics.render(); // '# HELP spillway_proxy_requests_total …'
 */
export class ProxyMetrics {
  readonly requests = new Counter('spillway_proxy_requests_total', 'Requests answered, by route and status.');
  readonly fits = new Counter('spillway_proxy_fits_total', 'Chat requests fitted before going upstream.');
  readonly prunes = new Counter('spillway_proxy_prunes_total', 'Fitted requests that dropped whole turns.');
  readonly prunedTurns = new Counter('spillway_proxy_pruned_turns_total', 'Whole turns dropped by fitting.');
  readonly cuts = new Counter(
    'spillway_proxy_cuts_total',
    'New cuts made by fitting, by kind (elide, drop, shorten and their combinations).',
  );
  readonly tokensFreed = new Counter(
    'spillway_proxy_cut_tokens_freed_total',
    'Prompt tokens new cuts took out.',
  );
  readonly uncertain = new Counter(
    'spillway_proxy_uncertain_total',
    'Requests sent although the estimate alone said they might not fit, for the upstream to judge.',
  );
  readonly recoveries = new Counter(
    'spillway_proxy_recoveries_total',
    'Upstream overflows recovered or given up, by overflow kind and action.',
  );
  readonly contextExceeded = new Counter(
    'spillway_proxy_context_exceeded_total',
    'Requests answered 400 context_length_exceeded because nothing Spillway can build fits.',
  );
  readonly passthroughs = new Counter(
    'spillway_proxy_passthroughs_total',
    'Generation requests sent upstream unfitted, by API and reason (an API Spillway does not fit, server-held state).',
  );
  readonly upstreamErrors = new Counter(
    'spillway_proxy_upstream_errors_total',
    'Upstream failures, by reason (unreachable, status, stream_error, interrupted).',
  );
  readonly storeErrors = new Counter(
    'spillway_proxy_store_errors_total',
    'Store reads and writes that failed.',
  );
  readonly storeSkipped = new Counter(
    'spillway_proxy_store_skipped_total',
    "Store reads and writes not attempted because the store's circuit breaker was open.",
  );
  readonly storeCircuitOpens = new Counter(
    'spillway_proxy_store_circuit_opens_total',
    "Times the store's circuit breaker opened after failures in a row.",
  );
  readonly storeCircuitOpen = new Gauge(
    'spillway_proxy_store_circuit_open',
    "1 while the store's circuit breaker is open or trying the store again, else 0.",
  );
  readonly #counts = LATENCY_BUCKETS.map(() => 0);
  #latencyCount = 0;
  #latencySum = 0;

  /** Records the time the proxy itself spent on one request, in seconds. */
  observeAddedLatency(seconds: number): void {
    const value = Math.max(0, seconds);
    this.#latencyCount++;
    this.#latencySum += value;
    for (const [index, bound] of LATENCY_BUCKETS.entries())
      if (value <= bound) this.#counts[index] = (this.#counts[index] ?? 0) + 1;
  }

  /** The histogram's count and sum, for tests and reports. */
  get addedLatency(): { count: number; sum: number } {
    return { count: this.#latencyCount, sum: this.#latencySum };
  }

  /** Everything, in the Prometheus text format. */
  render(): string {
    const name = 'spillway_proxy_added_latency_seconds';
    const histogram = [
      `# HELP ${name} Time the proxy adds to a chat request (reading, fitting, store, relaying), upstream time excluded.`,
      `# TYPE ${name} histogram`,
      ...LATENCY_BUCKETS.map((bound, index) => `${name}_bucket{le="${bound}"} ${this.#counts[index] ?? 0}`),
      `${name}_bucket{le="+Inf"} ${this.#latencyCount}`,
      `${name}_sum ${this.#latencySum}`,
      `${name}_count ${this.#latencyCount}`,
    ].join('\n');
    const counters = [
      this.requests,
      this.fits,
      this.prunes,
      this.prunedTurns,
      this.cuts,
      this.tokensFreed,
      this.uncertain,
      this.recoveries,
      this.contextExceeded,
      this.passthroughs,
      this.upstreamErrors,
      this.storeErrors,
      this.storeSkipped,
      this.storeCircuitOpens,
      this.storeCircuitOpen,
    ];
    return `${[...counters.map((counter) => counter.render()), histogram].join('\n')}\n`;
  }
}
