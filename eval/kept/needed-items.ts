/**
 * @module
 * The items of an agent's next action that it took from earlier context: paths, identifiers, numbers
 * of three or more digits, quoted strings and copied code lines that first appeared in an earlier
 * tool output or user message. Shell verbs, language keywords and words common to most repositories
 * are left out: an agent can write those without having seen them.
 */
import { contentText, type Message } from '../../src/core/index.js';

/** Words an agent writes from its own knowledge: shell verbs and options, Python and JS keywords. */
const STOP_WORDS = new Set(
  `cat grep sed find echo head tail python python3 pytest bash test tests true false none null self
  class return import from print else elif while with open read write file files line lines this that
  def function const async await export default type string number value values args kwargs name path
  exec type include exclude print_function main node npm npx yarn git diff status show log add commit
  xargs sort uniq awk wc mkdir touch chmod cp mv rm ls cd pwd env set get dict list tuple str int float bool
  None True False assert raise except finally lambda yield pass break continue global nonlocal`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

const PATH =
  /(?:\.{0,2}\/)?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)+|[A-Za-z0-9_-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b/g;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]{3,}/g;
const NUMBER = /\b\d{3,}\b/g;
const QUOTED = /"([^"\n]{3,80})"|'([^'\n]{3,80})'|`([^`\n]{3,80})`/g;
/** A line copied from an output is only evidence when it is long enough not to be written by chance. */
const MIN_CODE_LINE = 16;

/** The text of one message as a request carries it: content, and each tool call's name and arguments. */
export function messageText(message: Message): string {
  const parts = [contentText(message.content)];
  if (message.role === 'assistant')
    for (const call of message.toolCalls ?? []) parts.push(call.name, argumentText(call.arguments));
  return parts.join('\n');
}

/** A tool call's arguments as the text they hold: every string value of the JSON, one after another. */
export function argumentText(argumentsJson: string): string {
  try {
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (typeof value === 'object' && value !== null) Object.values(value).forEach(walk);
      else if (value !== undefined && value !== null) strings.push(String(value));
    };
    walk(JSON.parse(argumentsJson));
    return strings.join('\n');
  } catch {
    return argumentsJson;
  }
}

/** The next action's text: its tool calls' arguments, or its text when it calls no tool. */
export function actionText(message: Message): string {
  if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0)
    return (message.toolCalls ?? []).map((call) => argumentText(call.arguments)).join('\n');
  return contentText(message.content);
}

/** Every candidate item of an action, before filtering by where it first appeared. */
export function candidateItems(action: string, common: ReadonlySet<string>): string[] {
  const items = new Set<string>();
  const add = (item: string | undefined) => {
    const value = item?.trim();
    if (!value || STOP_WORDS.has(value) || common.has(value)) return;
    items.add(value);
  };
  for (const match of action.matchAll(PATH)) add(match[0].replace(/^\.\//, ''));
  for (const match of action.matchAll(IDENTIFIER)) add(match[0]);
  for (const match of action.matchAll(NUMBER)) add(match[0]);
  for (const match of action.matchAll(QUOTED)) add(match[1] ?? match[2] ?? match[3]);
  for (const line of action.split('\n')) if (line.trim().length >= MIN_CODE_LINE) add(line.trim());
  return [...items];
}

/**
 * Words common to most runs (found in the histories of at least `share` of them): an agent can use
 * them without having read them, so they prove nothing about what it needed.
 */
export function commonWords(histories: readonly (readonly Message[])[], share = 0.3): Set<string> {
  const counts = new Map<string, number>();
  for (const messages of histories) {
    const words = new Set(messages.map(messageText).join('\n').match(IDENTIFIER) ?? []);
    for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const least = Math.max(2, Math.ceil(histories.length * share));
  return new Set([...counts].filter(([, count]) => count >= least).map(([word]) => word));
}

/**
 * The needed items of the action at `messages[at]`: candidates whose first appearance in
 * `messages[0, at)` is in a tool output or a user message (not the system prompt, not the agent's
 * own words).
 */
export function neededItems({
  messages,
  texts,
  at,
  common,
}: {
  messages: readonly Message[];
  /** `messageText` of each message, computed once per trajectory. */
  texts: readonly string[];
  at: number;
  common: ReadonlySet<string>;
}): string[] {
  const action = messages[at];
  if (action === undefined) return [];
  return candidateItems(actionText(action), common).filter((item) => {
    for (let index = 0; index < at; index++) {
      if (!(texts[index] as string).includes(item)) continue;
      const role = (messages[index] as Message).role;
      return role === 'tool' || role === 'user';
    }
    return false;
  });
}
