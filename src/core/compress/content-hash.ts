/**
 * @module
 * A fingerprint of the text a compression entry was made from. A stored entry is applied only to a
 * tool result with the same fingerprint, so state saved for one conversation can never put its text
 * into another conversation that happens to reuse the same tool-call ids.
 */
import { contentHash, contentText, type ToolCall, type ToolMessage } from '../transcript/index.js';

/**
 * The fingerprint of what a compression entry for `message` is made from: the result's text and the
 * call it answers (name and arguments; an `elided` stub names them).
 */
export function entrySource(
  message: ToolMessage,
  call: Pick<ToolCall, 'name' | 'arguments'> | undefined,
): string {
  return contentHash([call?.name ?? '', call?.arguments ?? '', contentText(message.content)]);
}
