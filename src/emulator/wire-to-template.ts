/**
 * @module
 * Reads an OpenAI Chat Completions or Anthropic Messages request body into what the chat template
 * renders, the way an OpenAI-compatible server prepares messages for `apply_chat_template`: text
 * parts joined with a newline, tool-call arguments parsed from their JSON text (kept as text when
 * they do not parse), tools as `{"type": "function", "function": {name, description, parameters}}`.
 * Images and other non-text parts are not counted (a text tokenizer has no ground truth for them);
 * reasoning from earlier turns is not rendered (Qwen 2.5 has no reasoning, and Anthropic does not
 * count earlier thinking blocks toward the context).
 */
import type { TemplateInput, TemplateMessage, TemplateToolCall } from './chat-template.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text of a content value: a string, or the text parts of an array joined with newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isRecord(part) && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join('\n');
}

function parsedArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function functionTool(name: unknown, description: unknown, parameters: unknown): Json {
  return {
    type: 'function',
    function: { name, description: description ?? null, parameters: parameters ?? null },
  };
}

/** An OpenAI Chat Completions body as the template sees it. */
export function openAIToTemplate(body: Json): TemplateInput {
  const messages: TemplateMessage[] = [];
  for (const wire of Array.isArray(body.messages) ? body.messages : []) {
    if (!isRecord(wire)) continue;
    const rawRole = typeof wire.role === 'string' ? wire.role : '';
    const role = rawRole === 'developer' ? 'system' : rawRole === 'function' ? 'tool' : rawRole;
    const message: TemplateMessage = { role, content: contentText(wire.content) };
    if (role === 'assistant' && Array.isArray(wire.tool_calls) && wire.tool_calls.length > 0) {
      message.toolCalls = wire.tool_calls.map((call): TemplateToolCall => {
        const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
        return { name: String(fn.name ?? ''), arguments: parsedArguments(fn.arguments) };
      });
    }
    messages.push(message);
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((tool) => {
    if (!isRecord(tool) || !isRecord(tool.function)) return tool;
    return functionTool(tool.function.name, tool.function.description, tool.function.parameters);
  });
  return { messages, tools };
}

/** An Anthropic Messages body as the template sees it. */
export function anthropicToTemplate(body: Json): TemplateInput {
  const messages: TemplateMessage[] = [];
  const system = contentText(body.system);
  if (system !== '' || typeof body.system === 'string') messages.push({ role: 'system', content: system });
  for (const wire of Array.isArray(body.messages) ? body.messages : []) {
    if (!isRecord(wire)) continue;
    const role = typeof wire.role === 'string' ? wire.role : '';
    if (typeof wire.content === 'string') {
      messages.push({ role, content: wire.content });
      continue;
    }
    const blocks = Array.isArray(wire.content) ? wire.content.filter(isRecord) : [];
    const texts: string[] = [];
    const toolCalls: TemplateToolCall[] = [];
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      else if (block.type === 'tool_use')
        toolCalls.push({ name: String(block.name ?? ''), arguments: block.input ?? {} });
      else if (block.type === 'tool_result')
        messages.push({ role: 'tool', content: contentText(block.content) });
    }
    if (role === 'assistant') {
      messages.push(
        toolCalls.length > 0
          ? { role, content: texts.join('\n'), toolCalls }
          : { role, content: texts.join('\n') },
      );
    } else if (texts.length > 0 || !blocks.some((block) => block.type === 'tool_result')) {
      messages.push({ role, content: texts.join('\n') });
    }
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((tool) =>
    isRecord(tool) && tool.input_schema !== undefined
      ? functionTool(tool.name, tool.description, tool.input_schema)
      : tool,
  );
  return { messages, tools };
}

/**
 * An OpenAI Responses body (`instructions`, `input` as a string or items, `tools`) as the template
 * sees it, the way its Chat Completions equivalent reads: instructions as the system message,
 * `function_call` items as tool calls of the assistant message before them, `function_call_output`
 * items as tool results.
 */
export function responsesToTemplate(body: Json): TemplateInput {
  const messages: TemplateMessage[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'system', content: body.instructions });
  const items: unknown[] =
    typeof body.input === 'string'
      ? [{ role: 'user', content: body.input }]
      : Array.isArray(body.input)
        ? body.input
        : [];
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (item.type === 'function_call') {
      const call: TemplateToolCall = {
        name: String(item.name ?? ''),
        arguments: parsedArguments(item.arguments),
      };
      const previous = messages.at(-1);
      if (previous?.role === 'assistant') previous.toolCalls = [...(previous.toolCalls ?? []), call];
      else messages.push({ role: 'assistant', content: '', toolCalls: [call] });
    } else if (item.type === 'function_call_output') {
      messages.push({
        role: 'tool',
        content: typeof item.output === 'string' ? item.output : contentText(item.output),
      });
    } else if (typeof item.role === 'string') {
      const role = item.role === 'developer' ? 'system' : item.role;
      messages.push({ role, content: contentText(item.content) });
    }
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((tool) =>
    isRecord(tool) && tool.type === 'function'
      ? functionTool(tool.name, tool.description, tool.parameters)
      : tool,
  );
  return { messages, tools };
}
