import type { RequestFormat } from './types.js';
import { isRecord } from './wire.js';

/**
 * Tells whether a request body is an OpenAI Chat Completions, an OpenAI Responses or an Anthropic
 * Messages request, from the fields only one of them uses. Ambiguous bodies (plain user/assistant
 * text) are OpenAI Chat; a body with `input` and no `messages` is a Responses request.
 */
export function detectFormat(body: unknown): RequestFormat {
  if (!isRecord(body)) return 'openai';
  if (body.messages === undefined && body.input !== undefined) return 'responses';
  if (body.system !== undefined || body.stop_sequences !== undefined || body.thinking !== undefined)
    return 'anthropic';
  if (body.max_completion_tokens !== undefined || body.response_format !== undefined) return 'openai';
  if (Array.isArray(body.tools)) {
    for (const tool of body.tools) {
      if (!isRecord(tool)) continue;
      if (tool.input_schema !== undefined) return 'anthropic';
      if (tool.function !== undefined) return 'openai';
    }
  }
  if (Array.isArray(body.messages)) {
    for (const message of body.messages) {
      if (!isRecord(message)) continue;
      if (message.role === 'system' || message.role === 'developer' || message.role === 'tool')
        return 'openai';
      if (message.tool_calls !== undefined) return 'openai';
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (!isRecord(block)) continue;
        const type = block.type;
        if (
          type === 'tool_use' ||
          type === 'tool_result' ||
          type === 'thinking' ||
          type === 'redacted_thinking' ||
          type === 'document'
        )
          return 'anthropic';
        if (type === 'image' && block.source !== undefined) return 'anthropic';
        if (type === 'image_url' || type === 'input_audio' || type === 'file') return 'openai';
      }
    }
  }
  return 'openai';
}
