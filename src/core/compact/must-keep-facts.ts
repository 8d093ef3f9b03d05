/**
 * @module
 * Must-keep facts, extracted without a model from what is being compacted: file paths, identifiers,
 * error strings and open user requests. Whatever a summary dropped is appended to it.
 */
import { callPath } from '../compress/index.js';
import { contentText, type Message } from '../transcript/index.js';

/** The facts a summary has to keep, most recent last. */
export interface MustKeepFacts {
  paths: string[];
  identifiers: string[];
  errors: string[];
  requests: string[];
}

/** How many facts of each kind are kept (the most recent ones). */
export const MUST_KEEP_LIMITS = { paths: 30, identifiers: 30, errors: 8, requests: 4 } as const;

const PATH = /(?<![\w@.:/-])(?:\.{1,2}\/|\/)?(?:[\w@.-]+\/)+[\w@.-]*\w\.[A-Za-z][\w]{0,7}(?![\w/])/g;
const IDENTIFIER =
  /`([A-Za-z_$][\w$.]{1,60})`|\b([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g;
const ERROR_LINE =
  /\b(?:[A-Z]\w*(?:Error|Exception)|ENOENT|EACCES|EADDRINUSE|ECONNREFUSED|FAIL(?:ED)?|panic|Traceback|error(?:\[\w+\])?:|TS\d{4})\b/;
const INSTRUCTION = /\b(must|never|always|don't|do not|make sure|remember|please)\b/i;
const MAX_FACT_CHARS = 160;

/** Keeps the newest `limit` distinct values, in the order they were first seen among those. */
class Recent {
  readonly #order = new Map<string, number>();
  #tick = 0;
  add(value: string): void {
    const trimmed = value.trim();
    if (trimmed === '') return;
    this.#order.delete(trimmed);
    this.#order.set(trimmed, this.#tick++);
  }
  values(limit: number): string[] {
    const all = [...this.#order.keys()];
    return all.slice(Math.max(0, all.length - limit));
  }
}

function firstLine(text: string): string {
  const line = text.split('\n').find((item) => item.trim() !== '') ?? '';
  const trimmed = line.trim().replace(/\s+/g, ' ');
  return trimmed.length <= MAX_FACT_CHARS ? trimmed : `${trimmed.slice(0, MAX_FACT_CHARS - 1)}…`;
}

function addPaths(text: string, into: Recent): void {
  for (const match of text.matchAll(PATH)) if (!/^\w+:\/\//.test(match[0])) into.add(match[0]);
}

function addIdentifiers(text: string, into: Recent, paths: Recent): void {
  for (const match of text.matchAll(IDENTIFIER)) {
    const value = match[1] ?? match[2];
    if (value === undefined) continue;
    if (value.includes('/') || /\.[a-z]{1,5}$/.test(value)) paths.add(value);
    else into.add(value);
  }
}

/**
 * The facts of `messages` a summary must keep: paths from any text and from tool-call arguments,
 * identifiers (backticked, camelCase, PascalCase, snake_case, SCREAMING_SNAKE) from what the user
 * and the assistant wrote and from tool-call arguments, error lines from tool results and user
 * messages, and the user's requests (the newest one and any stated as a rule). Deterministic.
 *
 * @example
 * extractMustKeepFacts(messages).paths; // ['src/app.ts', 'test/app.test.ts']
 */
export function extractMustKeepFacts(messages: readonly Message[]): MustKeepFacts {
  const paths = new Recent();
  const identifiers = new Recent();
  const errors = new Recent();
  const requests = new Recent();
  let lastUser: string | undefined;
  for (const message of messages) {
    const text = contentText(message.content);
    if (message.role === 'tool') {
      addPaths(text, paths);
      for (const line of text.split('\n')) if (ERROR_LINE.test(line)) errors.add(firstLine(line));
      continue;
    }
    if (message.role === 'system') continue;
    addPaths(text, paths);
    addIdentifiers(text, identifiers, paths);
    if (message.role === 'user') {
      lastUser = text;
      if (INSTRUCTION.test(text)) requests.add(firstLine(text));
      for (const line of text.split('\n')) if (ERROR_LINE.test(line)) errors.add(firstLine(line));
    }
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) {
        const path = callPath(call);
        if (path !== undefined) paths.add(path);
        addIdentifiers(
          call.arguments.replace(/"(?:path|file_path|filePath|file)"\s*:\s*"[^"]*"/g, ''),
          identifiers,
          paths,
        );
      }
  }
  if (lastUser !== undefined) requests.add(firstLine(lastUser));
  return {
    paths: paths.values(MUST_KEEP_LIMITS.paths),
    identifiers: identifiers.values(MUST_KEEP_LIMITS.identifiers),
    errors: errors.values(MUST_KEEP_LIMITS.errors),
    requests: requests.values(MUST_KEEP_LIMITS.requests),
  };
}

function normalized(text: string): string {
  return text.replace(/\s+/g, ' ').toLowerCase();
}

/** Whether a summary keeps a fact: paths and identifiers verbatim, errors and requests by their start. */
function kept(summary: string, fact: string, exact: boolean): boolean {
  if (exact) return summary.includes(fact);
  return normalized(summary).includes(normalized(fact).slice(0, 60));
}

/**
 * Appends the facts `summary` does not mention as a short "also keep" list. Returns the summary
 * unchanged when it kept everything.
 *
 * @example
 * appendMissingFacts('Fixed the parser.', facts).text;
 * // "Fixed the parser.\n\nAlso keep (…):\n- files: src/parse.ts"
 */
export function appendMissingFacts(
  summary: string,
  facts: MustKeepFacts,
): { text: string; missing: string[] } {
  const paths = facts.paths.filter((fact) => !kept(summary, fact, true));
  const identifiers = facts.identifiers.filter((fact) => !kept(summary, fact, true));
  const errors = facts.errors.filter((fact) => !kept(summary, fact, false));
  const requests = facts.requests.filter((fact) => !kept(summary, fact, false));
  const missing = [...paths, ...identifiers, ...errors, ...requests];
  if (missing.length === 0) return { text: summary, missing };
  const lines = ['Also keep (from the compacted messages; the summary above does not mention them):'];
  if (paths.length > 0) lines.push(`- files: ${paths.join(', ')}`);
  if (identifiers.length > 0) lines.push(`- identifiers: ${identifiers.join(', ')}`);
  for (const error of errors) lines.push(`- error: ${JSON.stringify(error)}`);
  for (const request of requests) lines.push(`- user asked: ${JSON.stringify(request)}`);
  return { text: `${summary.trimEnd()}\n\n${lines.join('\n')}`, missing };
}
