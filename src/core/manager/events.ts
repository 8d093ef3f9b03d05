import type {
  SilentTruncationNotice,
  SuspectedTruncationNotice,
} from '../budget/detect-silent-truncation.js';
import type { SchemaFloorNotice } from '../schemas/index.js';
import type { TokenizerDemotedNotice } from '../tokens/index.js';
import type { CutReport } from './fit-result.js';
import type { CountSource, FitVerdict } from './request-count.js';

/**
 * Something the caller should show the user: a schema floor crowding the window, a silent truncation
 * (or one only the estimate suspects), a tokenizer that does not count as the provider does.
 */
export type ManagerNotice =
  | SchemaFloorNotice
  | SilentTruncationNotice
  | SuspectedTruncationNotice
  | TokenizerDemotedNotice;

/** Events a {@link ContextWindowManager} emits to observers, named noun-verb. */
export type ManagerEvent =
  | {
      type: 'fit';
      estimate: number;
      budget: number;
      window: number;
      pruned: boolean;
      droppedTurns: number;
      anchored: boolean;
      countSource: CountSource;
      verdict: Exclude<FitVerdict, 'over'>;
      /** What the fit did to the request (`none`: sent as it came; `sticky`: the earlier cut). */
      cut: CutReport['kind'];
    }
  /** A new cut: what it took out, and the request's size after it. */
  | ({
      type: 'cut';
      kind: Exclude<CutReport['kind'], 'none' | 'sticky'>;
      after: number;
      budget: number;
    } & Omit<CutReport, 'kind'>)
  | { type: 'calibrate'; factor: number; reported: number; raw: number }
  /** `level` and `message` repeat the notice's, in the shape of the tool loop's own `notice` event. */
  | { type: 'notice'; level: ManagerNotice['level']; message: string; notice: ManagerNotice };
