/**
 * @module
 * The result object, built one way: the kind, the figures that are stated (absent ones left out, in
 * a stable key order) and the pattern that decided.
 */
import type { OverflowFigures, OverflowInfo, OverflowKind } from './types.js';

/** An {@link OverflowInfo} with only the stated figures, keys in the order the wire form uses. */
export function overflowInfo(kind: OverflowKind, figures: OverflowFigures, pattern: string): OverflowInfo {
  return {
    kind,
    ...(figures.window !== undefined && { window: figures.window }),
    ...(figures.input !== undefined && { input: figures.input }),
    ...(figures.output !== undefined && { output: figures.output }),
    ...(figures.total !== undefined && { total: figures.total }),
    ...(figures.outputLimit !== undefined && { outputLimit: figures.outputLimit }),
    pattern,
  };
}
