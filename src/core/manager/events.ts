import type { CutReport } from './fit-result.js';
import type { ManagerNotice } from './manager-notice.js';
import type { CountSource, FitVerdict } from './request-count.js';

export type { ManagerNotice };

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
