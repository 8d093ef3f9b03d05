/**
 * @module
 * What every baseline does when the head and the newest turn alone are over the budget: the newest
 * tool outputs keep their start and end (Spillway's own head-and-tail cutter), so a baseline is not
 * refused where Spillway would shorten, and the comparison is of what each keeps, not of refusals.
 */
import { keepEnds } from '../../src/core/cut/index.js';
import { contentText, type Message, newestToolRun } from '../../src/core/index.js';
import { requestTokens } from './request-tokens.js';

/** `messages` with the newest run's tool outputs cut to their ends until the request fits `budget`. */
export function shortenToFit(messages: readonly Message[], budget: number): Message[] {
  let out = messages.slice();
  const newest = newestToolRun(messages);
  for (let share = 0.8; requestTokens(out) > budget && share > 0.01; share *= 0.7) {
    out = messages.map((message) => {
      if (message.role !== 'tool' || !newest.has(message.toolCallId)) return message;
      const text = contentText(message.content);
      const keep = Math.floor(text.length * share);
      return { ...message, content: keepEnds(text, keep, ({ lines }) => `[… ${lines} lines cut]`) };
    });
  }
  return out;
}
