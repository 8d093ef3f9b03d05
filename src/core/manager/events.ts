import type { SilentTruncationNotice } from '../budget/detect-silent-truncation.js';
import type { SchemaFloorNotice } from '../schemas/index.js';

/** Something the caller should show the user: a schema floor crowding the window, a silent truncation. */
export type ManagerNotice = SchemaFloorNotice | SilentTruncationNotice;

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
    }
  | { type: 'prune'; droppedTurns: number; before: number; after: number; budget: number }
  | { type: 'calibrate'; factor: number; reported: number; raw: number }
  /** Tool results escalated to a higher compression level; estimates before and after. */
  | { type: 'compress'; escalated: number; before: number; after: number; budget: number }
  /** `level` and `message` repeat the notice's, in the shape of the tool loop's own `notice` event. */
  | { type: 'notice'; level: ManagerNotice['level']; message: string; notice: ManagerNotice };
