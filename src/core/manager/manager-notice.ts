import type {
  SilentTruncationNotice,
  SuspectedTruncationNotice,
} from '../budget/detect-silent-truncation.js';
import type { SchemaFloorNotice } from '../schemas/index.js';
import type { TokenizerDemotedNotice } from '../tokens/index.js';

/**
 * Something the caller should show the user: a schema floor crowding the window, a silent truncation
 * (or one only the estimate suspects), a tokenizer that does not count as the provider does.
 */
export type ManagerNotice =
  | SchemaFloorNotice
  | SilentTruncationNotice
  | SuspectedTruncationNotice
  | TokenizerDemotedNotice;
