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
  | { type: 'calibrate'; factor: number; reported: number; raw: number };
