/**
 * @module
 * Where a limit came from, as an ordered provenance: what a server says about itself beats what
 * something else says about it, and a figure the server stated while enforcing it beats everything
 * but a limit the user marked hard.
 */

/**
 * The provenance of a window or output cap, strongest first:
 * - `config:hard`: configured and marked as a hard limit (`{ "value": N, "hard": true }`,
 *   `--hard-context-length`): the user's word over everything;
 * - `stated`: a figure the provider stated while rejecting a request (or its usage showed, for a
 *   silent truncation), learned and kept;
 * - `probed`: stated in answer to Spillway's zero-cost probe (a request whose `max_tokens` exceeds
 *   any window, which a validating server rejects at once, naming the limit);
 * - `discovered:<endpoint>`: what the server reports about itself (vLLM `/v1/models`
 *   `max_model_len`, llama.cpp `/props`, Ollama `/api/ps` and `/api/show`, LM Studio, TGI `/info`);
 * - `claimed:<endpoint>`: what a gateway says about a backend it does not run (LiteLLM
 *   `/model/info`): a claim to verify, not a fact;
 * - `catalog`: the model catalog;
 * - `config`: configured without the hard mark: used when nothing else states the figure;
 * - `fallback`: nothing states it (8,192 tokens, no output cap).
 */
export type LimitSource =
  | 'config:hard'
  | 'stated'
  | 'probed'
  | `discovered:${string}`
  | `claimed:${string}`
  | 'catalog'
  | 'config'
  | 'fallback';

/** The kinds of {@link LimitSource}, strongest first (the endpoint left out). */
export const LIMIT_SOURCE_ORDER = [
  'config:hard',
  'stated',
  'probed',
  'discovered',
  'claimed',
  'catalog',
  'config',
  'fallback',
] as const;

/** One kind of {@link LimitSource}. */
export type LimitSourceKind = (typeof LIMIT_SOURCE_ORDER)[number];

/** The kind of a source: `discovered:/props` → `discovered`. */
export function limitSourceKind(source: LimitSource): LimitSourceKind {
  if (source.startsWith('discovered:')) return 'discovered';
  if (source.startsWith('claimed:')) return 'claimed';
  return source as LimitSourceKind;
}

/** The rank of a source: 0 is the strongest. */
export function limitSourceRank(source: LimitSource): number {
  return LIMIT_SOURCE_ORDER.indexOf(limitSourceKind(source));
}

/** Whether `source` beats `other` (ties do not). */
export function outranks(source: LimitSource, other: LimitSource): boolean {
  return limitSourceRank(source) < limitSourceRank(other);
}

/** One figure and who stated it. */
export interface LimitFigure {
  value: number;
  source: LimitSource;
}

/**
 * A source in words, for notices and `/limits`.
 *
 * @example
 * describeLimitSource('claimed:/model/info'); // 'claimed by the gateway at /model/info'
 */
export function describeLimitSource(source: LimitSource): string {
  switch (limitSourceKind(source)) {
    case 'config:hard':
      return 'config, marked hard';
    case 'stated':
      return 'stated by the provider in an error';
    case 'probed':
      return "stated by the server in answer to Spillway's probe";
    case 'discovered':
      return `reported by the server at ${source.slice('discovered:'.length)}`;
    case 'claimed':
      return `claimed by the gateway at ${source.slice('claimed:'.length)}`;
    case 'catalog':
      return 'model catalog';
    case 'config':
      return 'config';
    default:
      return 'fallback (nothing states it)';
  }
}
