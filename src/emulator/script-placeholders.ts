/**
 * @module
 * Placeholders a scripted reply can carry, filled from the conversation of the request it answers
 * (OpenAI or Anthropic wire messages): `{{listed_file}}`, a file the newest directory listing in a
 * tool result showed, and `{{prompt_word}}`, the longest word of the newest user message.
 */

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Files a listing is most likely to be understood by, in order. */
const PREFERRED_FILES = ['README.md', 'package.json', 'pyproject.toml', 'Cargo.toml', 'go.mod'];
/** Used when the conversation offers nothing better. */
const FALLBACK_FILE = 'README.md';
const FALLBACK_WORD = 'TODO';
/** A file line of a listing: `name  123 bytes` (the chat's `list_directory`). */
const LISTED_FILE = /^(.+?) {2}\d+ bytes$/;

/** The text of wire content: a string, or its text parts and tool-result blocks. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (!isRecord(part)) return '';
      if (typeof part.text === 'string') return part.text;
      if (part.type === 'tool_result') return textOf(part.content);
      return '';
    })
    .join('\n');
}

/** Tool results, newest first: OpenAI `tool` messages and Anthropic `tool_result` blocks. */
function toolResults(messages: readonly unknown[]): string[] {
  const results: string[] = [];
  for (const message of [...messages].reverse()) {
    if (!isRecord(message)) continue;
    if (message.role === 'tool') results.push(textOf(message.content));
    else if (message.role === 'user' && Array.isArray(message.content))
      for (const block of message.content)
        if (isRecord(block) && block.type === 'tool_result') results.push(textOf(block.content));
  }
  return results;
}

/** The newest user message with text of its own (not only tool results). */
function newestPrompt(messages: readonly unknown[]): string {
  for (const message of [...messages].reverse()) {
    if (!isRecord(message) || message.role !== 'user') continue;
    const own =
      typeof message.content === 'string'
        ? message.content
        : Array.isArray(message.content)
          ? message.content
              .map((part) =>
                isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : '',
              )
              .join(' ')
          : '';
    if (own.trim() !== '') return own;
  }
  return '';
}

function listedFile(messages: readonly unknown[]): string {
  for (const result of toolResults(messages)) {
    const files = result.split('\n').flatMap((line) => LISTED_FILE.exec(line)?.[1] ?? []);
    if (files.length === 0) continue;
    return PREFERRED_FILES.find((name) => files.includes(name)) ?? (files[0] as string);
  }
  return FALLBACK_FILE;
}

function promptWord(messages: readonly unknown[]): string {
  const words = newestPrompt(messages).match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? [];
  return (
    words.reduce((longest, word) => (word.length > longest.length ? word : longest), '') || FALLBACK_WORD
  );
}

/**
 * Fills the placeholders of `text` from `messages`; text without any comes back unchanged.
 *
 * @example
 * fillPlaceholders('Reading {{listed_file}}.', messages); // 'Reading package.json.'
 */
export function fillPlaceholders(text: string, messages: readonly unknown[]): string {
  if (!text.includes('{{')) return text;
  return text
    .replaceAll('{{listed_file}}', () => listedFile(messages))
    .replaceAll('{{prompt_word}}', () => promptWord(messages));
}
