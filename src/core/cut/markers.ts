/**
 * @module
 * The text a cut leaves where it took something out. Markers are byte-stable from send to send, so
 * the provider's prefix cache holds; they mention `recall` only where a recall tool is offered.
 */
import { formatCount, type LedgerEntry } from '../compress/index.js';

/** Whether the surface offers the `recall` tool: markers then say how to get the original back. */
export interface MarkerOptions {
  recall: boolean;
}

/** The most characters a marker's list of what the dropped turns read and ran takes. */
export const MAX_LEDGER_CHARS = 600;

/**
 * What dropped turns did, newest last: `They read src/a.py lines 1–40, src/b.py; ran \`pytest -x\`.`
 * Over {@link MAX_LEDGER_CHARS} the oldest entries go first (`…and 3 more`).
 */
export function ledgerText(entries: readonly LedgerEntry[]): string {
  const unique = [...new Map(entries.map((entry) => [`${entry.kind}:${entry.text}`, entry])).values()];
  for (let skip = 0; skip <= unique.length; skip++) {
    const kept = unique.slice(skip);
    const group = (kind: LedgerEntry['kind'], verb: string) => {
      const texts = kept.filter((entry) => entry.kind === kind).map((entry) => entry.text);
      return texts.length === 0 ? [] : [`${verb} ${texts.join(', ')}`];
    };
    const parts = [...group('read', 'read'), ...group('ran', 'ran'), ...group('called', 'called')];
    const more = skip === 0 ? '' : ` (and ${formatCount(skip)} earlier)`;
    const text = parts.length === 0 ? '' : `They ${parts.join('; ')}${more}.`;
    if (text.length <= MAX_LEDGER_CHARS) return text;
  }
  return '';
}

/** The words before the names a cut took out of sight. */
const NAMES_PREFIX = 'Names seen only there: ';

/** `Names seen only there: a, b.`, or nothing without names. */
export function namesText(names: readonly string[]): string {
  return names.length === 0 ? '' : `${NAMES_PREFIX}${names.join(', ')}.`;
}

/**
 * The marker where whole turns were dropped: how many, what they read and ran (`entries`), the names
 * seen only in them (`names`), and how to get it back (read or run again; `recall` where the tool is
 * offered).
 */
export function droppedTurnsMarker(
  {
    recallId,
    dropped,
    turns,
    entries = [],
    names = [],
  }: {
    recallId: number;
    dropped: number;
    turns: number;
    entries?: readonly LedgerEntry[];
    names?: readonly string[];
  },
  { recall }: MarkerOptions,
): string {
  const what = dropped === 1 ? '1 earlier message' : `${formatCount(dropped)} earlier messages`;
  const whole = turns === 1 ? '1 turn' : `${formatCount(turns)} turns`;
  const said = [ledgerText(entries), namesText(names)].filter((text) => text !== '').join(' ');
  const back = recall
    ? `; recall #${recallId} brings them back`
    : said === ''
      ? ''
      : '; read or run again what you need';
  return `[pruned #${recallId}: ${what} (${whole}) left out to fit the window${said === '' ? '' : `. ${said.slice(0, -1)}`}${back}]`;
}

/** The marker inside a shortened tool result, between its kept start and end. */
export function shortenedMarker(
  { recallId, lines, tokens }: { recallId: number; lines: number; tokens: number },
  { recall }: MarkerOptions,
): string {
  const what = lines === 1 ? '1 line' : `${formatCount(lines)} lines`;
  const back = recall ? `; recall #${recallId} brings it back` : '; ask for a narrower range to see it';
  return `[… ${what} (about ${formatCount(tokens)} tokens) of this output cut to fit the context window${back}]`;
}
