import type { Content, ContentPart } from './types.js';

/** The text of a content value: strings as they are, text and reasoning parts joined by newlines. */
export function contentText(content: Content): string {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') text += text === '' ? part.text : `\n${part.text}`;
  }
  return text;
}

/** Parts of a content value, a string becoming one text part. */
export function contentParts(content: Content): ContentPart[] {
  if (typeof content !== 'string') return content;
  return content === '' ? [] : [{ type: 'text', text: content }];
}
