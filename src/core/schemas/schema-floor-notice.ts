/**
 * @module
 * The notices a large schema floor raises: a warning when the floor crosses 60% of the prompt budget,
 * an error when it takes more than 90% of the window or the whole budget.
 */
import type { SchemaFloor, SchemaSource } from './measure-schema-floor.js';

/** The share of the prompt budget at which the floor raises a warning. */
export const SCHEMA_FLOOR_WARNING_RATIO = 0.6;

/** The share of the context window above which the floor raises an error. */
export const SCHEMA_FLOOR_ERROR_RATIO = 0.9;

/** How many sources a notice names before it elides the rest. */
export const NOTICE_SOURCES = 4;

/** How serious a floor is; levels only escalate `none` → `warning` → `error`. */
export type SchemaFloorLevel = 'none' | 'warning' | 'error';

/** A notice about the schema floor, for the caller to show. */
export interface SchemaFloorNotice {
  code: 'tool_schema_floor';
  level: 'warning' | 'error';
  message: string;
  /** Floor tokens: tool schemas plus system messages. */
  floor: number;
  budget: number;
  window: number;
  sources: SchemaSource[];
}

/** Ordering of levels, for escalation checks. */
export const SCHEMA_FLOOR_LEVELS: readonly SchemaFloorLevel[] = ['none', 'warning', 'error'];

/** The level of a floor against a budget and window. */
export function schemaFloorLevel({
  floor,
  budget,
  window,
}: {
  floor: number;
  budget: number;
  window: number;
}): SchemaFloorLevel {
  if (floor > window * SCHEMA_FLOOR_ERROR_RATIO || floor >= budget) return 'error';
  if (floor >= budget * SCHEMA_FLOOR_WARNING_RATIO) return 'warning';
  return 'none';
}

/** A token count for people: `850`, `3.4k`, `81k`. */
export function formatTokens(tokens: number): string {
  if (tokens < 1_000) return String(tokens);
  if (tokens < 10_000) return `${(tokens / 1_000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(tokens / 1_000)}k`;
}

/** `github 34k (52 tools), jira 22k (31 tools)…`: the costliest sources, elided past {@link NOTICE_SOURCES}. */
export function describeSources(sources: readonly SchemaSource[], limit = NOTICE_SOURCES): string {
  const named = sources
    .slice(0, limit)
    .map(
      (entry) =>
        `${entry.source} ${formatTokens(entry.tokens)} (${entry.tools} tool${entry.tools === 1 ? '' : 's'})`,
    );
  return named.join(', ') + (sources.length > limit ? '…' : '');
}

/**
 * The notice for a floor, or `undefined` below the warning level.
 *
 * @example
 * schemaFloorNotice({ floor, budget: 90_000, window: 96_000 })?.message;
 * // 'tool schemas use 81k of the 96k context window — github 34k (52 tools), jira 22k (31 tools)…: disable servers or filter their tools'
 */
export function schemaFloorNotice({
  floor,
  budget,
  window,
}: {
  floor: SchemaFloor;
  budget: number;
  window: number;
}): SchemaFloorNotice | undefined {
  const level = schemaFloorLevel({ floor: floor.tokens, budget, window });
  if (level === 'none') return undefined;
  const system =
    floor.systemTokens > 0 && floor.systemTokens >= floor.tokens * 0.05
      ? ` (system messages another ${formatTokens(floor.systemTokens)})`
      : '';
  const room = level === 'error' ? ', leaving no room for the conversation' : '';
  const advice =
    level === 'error'
      ? 'disable servers, filter their tools or load them on demand (deferred tool loading)'
      : 'disable servers or filter their tools';
  return {
    code: 'tool_schema_floor',
    level,
    message: `tool schemas use ${formatTokens(floor.toolTokens)} of the ${formatTokens(window)} context window${system}${room} — ${describeSources(floor.sources)}: ${advice}`,
    floor: floor.tokens,
    budget,
    window,
    sources: floor.sources,
  };
}
