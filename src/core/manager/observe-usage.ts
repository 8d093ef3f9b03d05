/**
 * @module
 * What a manager learns from the usage a provider reports for its last request: the calibration,
 * the anchor of the next count, whether the model's tokenizer counts as the provider does, and a
 * silent truncation — learned only on trusted evidence.
 */
import {
  detectSilentTruncation,
  silentTruncationNotice,
  suspectedTruncationNotice,
} from '../budget/detect-silent-truncation.js';
import {
  observeCalibration,
  scalarFactor,
  tokenizerDemotedNotice,
  withTokenizerCheck,
} from '../tokens/index.js';
import { requireObject } from '../transcript/index.js';
import { localCount, verifyTokenizer } from './counter-trust.js';
import type { ManagerCore } from './manager-core.js';
import type { ManagerNotice } from './manager-notice.js';
import type { UsageReport } from './manager-state.js';
import type { SentRequest } from './sent-request.js';

/** A count of a request by a local counter, with the error it may have and whether it is trusted. */
type LocalCount = { tokens: number; spread: number; verified: boolean };

/** Feeds back a report (see `ContextWindowManager.observe`). */
export function observeUsage(core: ManagerCore, usage: UsageReport): ManagerNotice | undefined {
  requireObject(usage, 'observe', 'the usage the provider reported: { promptTokens: usage.prompt_tokens }');
  const last = core.requests.last;
  const reported = usage.promptTokens;
  if (!last || !(reported > 0)) return undefined;
  const truncation = detectTruncation(core, last, reported);
  if (truncation?.code === 'silent_truncation') return truncation;
  const demoted = checkTokenizer(core, last, reported);
  core.schemaFloor.observe({ reported, raw: last.raw, hasImages: last.hasImages });
  const before = scalarFactor(core.calibration);
  core.calibration = observeCalibration(core.calibration, { reported, raw: last.split });
  core.requests.recordReport(reported);
  const factor = scalarFactor(core.calibration);
  if (factor !== before) core.emit({ type: 'calibrate', factor, reported, raw: last.raw });
  return truncation ?? demoted;
}

/** Settles a suspected truncation with a count (see `ContextWindowManager.confirmTruncation`). */
export function confirmTruncation(
  core: ManagerCore,
  { promptTokens, reported }: { promptTokens: number; reported: number },
): ManagerNotice | undefined {
  const last = core.requests.last;
  if (!last || !(promptTokens > 0) || !(reported > 0)) return undefined;
  return detectTruncation(core, last, reported, { tokens: promptTokens, spread: 0, verified: true });
}

/**
 * A silent truncation in this report: learns the window, drops the anchor, emits the notice. Only
 * trusted evidence (an anchor, a trusted count) makes one; the estimate alone only suspects it, and a
 * local count (a tokenizer pass) is taken only to settle such a suspicion.
 */
function detectTruncation(
  core: ManagerCore,
  last: SentRequest,
  reported: number,
  counted?: LocalCount,
): ManagerNotice | undefined {
  if (core.options.detectSilentTruncation === false) return undefined;
  const detect = (count: LocalCount | undefined) =>
    detectSilentTruncation({
      reported,
      ...(last.countable ? { raw: last.raw } : {}),
      ...(last.extends ? { anchor: last.extends } : {}),
      ...(count && last.countable ? { counted: count } : {}),
    });
  let check = detect(counted);
  if (check.suspected && counted === undefined) {
    const local = localCount(core.counters, core.calibration, last);
    if (local) check = detect(local);
  }
  const model = last.model;
  if (check.suspected) {
    const notice = suspectedTruncationNotice({ check, ...(model === undefined ? {} : { model }) });
    core.emit({ type: 'notice', level: notice.level, message: notice.message, notice });
    return notice;
  }
  if (!check.truncated) return undefined;
  const current = core.limits.windowFor(model);
  if (model !== undefined && check.window !== undefined && (current === undefined || check.window < current))
    core.limits.learnWindow(model, check.window);
  const learned = core.limits.windowFor(model) !== current;
  const notice = silentTruncationNotice({ check, model, learned });
  core.requests.dropLastReport();
  core.emit({ type: 'notice', level: notice.level, message: notice.message, notice });
  return notice;
}

/** The tokenizer against one report; the notice of a demotion (once: it is not compared again). */
function checkTokenizer(core: ManagerCore, last: SentRequest, reported: number): ManagerNotice | undefined {
  const next = verifyTokenizer(core.counters, core.calibration, { sent: last, reported });
  if (next === undefined) return undefined;
  core.calibration = withTokenizerCheck(core.calibration, next);
  if (next.status !== 'demoted') return undefined;
  const notice = tokenizerDemotedNotice({
    check: next,
    tokenizer: core.counters.tokenizer?.counter.name ?? 'tokenizer',
    ...(last.model === undefined ? {} : { model: last.model }),
  });
  core.emit({ type: 'notice', level: notice.level, message: notice.message, notice });
  return notice;
}
