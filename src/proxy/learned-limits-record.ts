/**
 * @module
 * Learned limits as evidence, kept per upstream and model: what each credential (a hash, never the
 * key) observed, and what every client gets once it is confirmed. An observation changes only its
 * own credential's limits at first; it reaches the others when a second credential observes the same
 * figure, or discovery reports it, and even then one step moves the shared figure at most a factor
 * of {@link MAX_SHARED_STEP}. Everything expires: a learned figure is a memory of what a server
 * said, not configuration.
 */
/** How long an observation, and a shared figure, is believed after it was made (24 hours). */
export const LEARNED_LIMITS_TTL_SECONDS = 24 * 3_600;

/** Credentials whose observations are kept per model (the most recent). */
export const MAX_OBSERVERS = 8;

/** The most one confirmed observation moves the shared figure, as a factor, down or up. */
export const MAX_SHARED_STEP = 4;

/** Two figures within this share of each other agree (servers state the same figure each time). */
export const AGREEMENT_SHARE = 0.02;

/** The credential of clients that send none: they cannot be told apart, so they share one. */
export const ANONYMOUS_CREDENTIAL = 'anonymous';

/** Limits learned from the upstream's overflow errors and usage reports. */
export interface LearnedModelLimits {
  contextLength?: number;
  outputCap?: number;
}

/** What one credential observed about a model. */
export interface LimitObservation {
  /** A hash of the client's credential headers. */
  credential: string;
  contextLength?: number;
  outputCap?: number;
  /** The window and output cap the observation was made against (the base of the step cap). */
  fromContextLength?: number;
  fromOutputCap?: number;
  /** When, in milliseconds since the epoch. */
  at: number;
}

/** Figures every client of the model gets, and what confirmed each. */
export interface SharedLimits {
  contextLength?: { value: number; at: number; confirmedBy: 'credentials' | 'discovery' };
  outputCap?: { value: number; at: number; confirmedBy: 'credentials' };
}

/** What the store keeps for one upstream and model. */
export interface LearnedLimitsRecord {
  observations: LimitObservation[];
  shared: SharedLimits;
}

type Limit = 'contextLength' | 'outputCap';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const positive = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value > 0;

const fresh = (at: number, now: number): boolean =>
  now - at < LEARNED_LIMITS_TTL_SECONDS * 1_000 && at <= now;

/** A stored value, checked: what another version or a hand wrote costs its figures, never a request. */
export function parseLearnedLimitsRecord(value: unknown, now: number): LearnedLimitsRecord {
  const record: LearnedLimitsRecord = { observations: [], shared: {} };
  if (!isRecord(value)) return record;
  for (const item of Array.isArray(value.observations) ? value.observations : []) {
    if (!isRecord(item) || typeof item.credential !== 'string' || typeof item.at !== 'number') continue;
    if (!fresh(item.at, now)) continue;
    const observation: LimitObservation = { credential: item.credential, at: item.at };
    for (const key of ['contextLength', 'outputCap', 'fromContextLength', 'fromOutputCap'] as const)
      if (positive(item[key])) observation[key] = item[key];
    record.observations.push(observation);
  }
  record.observations = record.observations.slice(0, MAX_OBSERVERS);
  const shared = isRecord(value.shared) ? value.shared : {};
  const window = shared.contextLength;
  if (isRecord(window) && positive(window.value) && typeof window.at === 'number' && fresh(window.at, now))
    record.shared.contextLength = {
      value: window.value,
      at: window.at,
      confirmedBy: window.confirmedBy === 'discovery' ? 'discovery' : 'credentials',
    };
  const cap = shared.outputCap;
  if (isRecord(cap) && positive(cap.value) && typeof cap.at === 'number' && fresh(cap.at, now))
    record.shared.outputCap = { value: cap.value, at: cap.at, confirmedBy: 'credentials' };
  return record;
}

/**
 * The limits in force for one credential: its own observation where it made one, else the shared
 * figure; of the two, the newer.
 */
export function limitsForCredential(record: LearnedLimitsRecord, credential: string): LearnedModelLimits {
  const own = record.observations.find((observation) => observation.credential === credential);
  const limits: LearnedModelLimits = {};
  for (const key of ['contextLength', 'outputCap'] as const) {
    const mine = own?.[key];
    const shared = record.shared[key];
    const value =
      mine !== undefined && (shared === undefined || (own as LimitObservation).at >= shared.at)
        ? mine
        : shared?.value;
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

const agree = (left: number, right: number): boolean =>
  Math.abs(left - right) <= AGREEMENT_SHARE * Math.max(left, right);

/** `value` moved from `base` by at most {@link MAX_SHARED_STEP} either way. */
function capStep(value: number, base: number | undefined): number {
  if (base === undefined) return value;
  return Math.min(Math.max(value, Math.ceil(base / MAX_SHARED_STEP)), base * MAX_SHARED_STEP);
}

/** The shared figure one limit moves to when `observation` is confirmed, or `undefined`. */
function confirmed(
  record: LearnedLimitsRecord,
  observation: LimitObservation,
  key: Limit,
  discovered: number | undefined,
): { value: number; by: 'credentials' | 'discovery' } | undefined {
  const value = observation[key];
  if (value === undefined) return undefined;
  const from = key === 'contextLength' ? observation.fromContextLength : observation.fromOutputCap;
  const base = record.shared[key]?.value ?? from;
  if (key === 'contextLength' && discovered !== undefined && agree(value, discovered))
    return { value: capStep(value, base), by: 'discovery' };
  const other = record.observations.find(
    (entry) =>
      entry.credential !== observation.credential && entry[key] !== undefined && agree(entry[key], value),
  );
  if (other === undefined) return undefined;
  return { value: capStep(Math.max(value, other[key] as number), base), by: 'credentials' };
}

/**
 * The record with one credential's new observation: kept as that credential's (the newest figure
 * per limit wins, the server's current one), and made shared where another credential or discovery
 * confirms it, moved at most {@link MAX_SHARED_STEP} from the shared figure before it.
 *
 * @example
 * const next = recordObservation(record, { observation: { credential: 'a1…', contextLength: 8_192, at: now }, now });
 */
export function recordObservation(
  record: LearnedLimitsRecord,
  { observation, discovered }: { observation: LimitObservation; discovered?: number },
): LearnedLimitsRecord {
  const previous = record.observations.find((entry) => entry.credential === observation.credential);
  const merged: LimitObservation = { ...previous, ...observation };
  const others = record.observations.filter((entry) => entry.credential !== observation.credential);
  const next: LearnedLimitsRecord = {
    observations: [merged, ...others].slice(0, MAX_OBSERVERS),
    shared: { ...record.shared },
  };
  const window = confirmed(record, observation, 'contextLength', discovered);
  if (window) next.shared.contextLength = { value: window.value, at: observation.at, confirmedBy: window.by };
  const cap = confirmed(record, observation, 'outputCap', undefined);
  if (cap) next.shared.outputCap = { value: cap.value, at: observation.at, confirmedBy: 'credentials' };
  return next;
}
