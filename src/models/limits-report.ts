/**
 * @module
 * Resolved limits as the command line prints them: snake_case, every figure with its source.
 */
import type { LimitNotice } from './limit-notices.js';
import { type LimitSource, limitSourceRank } from './limit-source.js';
import type { ResolvedLimits } from './resolve-limits.js';

/** What each source stated, strongest first. */
export interface SourceFigures {
  source: LimitSource;
  context_length?: number;
  output_cap?: number;
}

/** `spillway limits`' output. */
export interface LimitsReport {
  model: string;
  context_length: number;
  output_cap: number | null;
  source: { context_length: LimitSource; output_cap: LimitSource };
  /** Every source that stated a figure, strongest first (the fallback states none). */
  figures: SourceFigures[];
  notices?: LimitNotice[];
  errors?: Array<{ source: string; base_url: string; code: string; message: string }>;
}

/**
 * The report of resolved limits: the figures in force with their sources, what every source said,
 * notices, and the sources that could not be asked.
 *
 * @example
 * printJson(limitsReport(await resolveLimits({ model, baseUrl })));
 */
export function limitsReport(limits: ResolvedLimits): LimitsReport {
  const bySource = new Map<LimitSource, SourceFigures>();
  const entry = (source: LimitSource) => {
    const found = bySource.get(source) ?? { source };
    bySource.set(source, found);
    return found;
  };
  for (const figure of limits.figures.contextLength) entry(figure.source).context_length = figure.value;
  for (const figure of limits.figures.outputCap) entry(figure.source).output_cap = figure.value;
  const figures = [...bySource.values()].sort(
    (a, b) => limitSourceRank(a.source) - limitSourceRank(b.source),
  );
  return {
    model: limits.model,
    context_length: limits.contextLength,
    output_cap: limits.outputCap ?? null,
    source: { context_length: limits.source.contextLength, output_cap: limits.source.outputCap },
    figures,
    ...(limits.notices ? { notices: limits.notices } : {}),
    ...(limits.errors
      ? {
          errors: limits.errors.map(({ source, baseUrl, code, message }) => ({
            source,
            base_url: baseUrl,
            code,
            message,
          })),
        }
      : {}),
  };
}
