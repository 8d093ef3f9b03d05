/**
 * @module
 * The Gemini API's `generateContent` request read into the normalized transcript and written back.
 * `systemInstruction` is the head's system message; a `model` turn is an assistant message whose
 * `functionCall` parts are its tool calls; each `functionResponse` part of the `user` turn after it
 * is a tool message (the turn's other parts a user message attached to it), paired with its call
 * by id when both carry one and by position otherwise, since the Gemini API pairs them per turn
 * ("the number of function response parts is equal to the number of function call parts of the
 * function call turn"). A call without an id gets one made from its place in `contents`, written
 * back without it. `generationConfig.maxOutputTokens` is the reply cap. The model is in the URL, so
 * it is given to {@link fromGemini} and never written into the body.
 */

import type {
  GeminiContent,
  GeminiFunctionDeclaration,
  GeminiGenerateContentBody,
  GeminiPart,
  GeminiTool,
} from './gemini-wire.js';
import type {
  AssistantMessage,
  ChatRequest,
  Content,
  ContentPart,
  Extra,
  Message,
  ToolCall,
  ToolDefinition,
  ToolMessage,
  UserMessage,
} from './types.js';
import {
  argumentsText,
  argumentsValue,
  extraFields,
  invalid,
  isRecord,
  originalOf,
  portableFields,
  readObjectBody,
  rememberOriginal,
  withoutExtras,
} from './wire.js';

const FORMAT = 'gemini';

/** Ids made for calls that came without one; they are not written back. */
export const GEMINI_CALL_ID_PREFIX = 'gemini-call-';

/** Fields of `functionResponse.response` whose single string is the tool's output. */
const RESPONSE_KEYS = ['output', 'content', 'result', 'error'];

/**
 * Reads a `generateContent` body (JSON text or a parsed value) into the normalized transcript;
 * `model` is the one the URL names (`models/` prefix dropped).
 *
 * @throws SpillwayError `invalid_transcript` naming the turn and part when the body is malformed.
 * @example
 * const request = fromGemini({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { model: 'gemini-2.5-pro' });
 */
export function fromGemini(body: unknown, options: { model?: string } = {}): ChatRequest {
  const wire = readObjectBody(body, 'the Gemini request', 'a "contents" array');
  if (!Array.isArray(wire.contents))
    throw invalid('the Gemini request has no "contents" array; add the conversation as "contents"');
  const messages: Message[] = [];
  if (wire.systemInstruction !== undefined && wire.systemInstruction !== null)
    messages.push(readSystemInstruction(wire.systemInstruction));
  messages.push(...readContents(wire.contents));
  const extra = extraFields(wire, ['contents', 'systemInstruction', 'tools', 'generationConfig']) ?? {};
  const request: ChatRequest = { format: FORMAT, messages, tools: readTools(wire.tools), extra };
  const config = wire.generationConfig;
  if (config !== undefined) {
    if (!isRecord(config)) throw invalid('"generationConfig" must be an object');
    const { maxOutputTokens, ...rest } = config;
    if (maxOutputTokens !== undefined && maxOutputTokens !== null) {
      if (typeof maxOutputTokens !== 'number' || !Number.isInteger(maxOutputTokens) || maxOutputTokens < 1)
        throw invalid(
          `generationConfig.maxOutputTokens must be a positive integer, got ${JSON.stringify(maxOutputTokens)}`,
        );
      request.maxTokens = maxOutputTokens;
    }
    extra.generationConfig = rest;
  }
  if (options.model !== undefined) request.model = options.model.replace(/^models\//, '');
  if (Array.isArray(wire.tools)) rememberOriginal(request.tools, FORMAT, wire.tools);
  return request;
}

/**
 * Writes a normalized request as a `generateContent` body: leading system messages as
 * `systemInstruction`, each turn as `contents`, the reply cap as `generationConfig.maxOutputTokens`.
 *
 * @example
 * const body = toGemini(request); // { contents: [...], generationConfig: { maxOutputTokens: 2048 } }
 */
export function toGemini(request: ChatRequest): GeminiGenerateContentBody {
  const native = request.format === FORMAT;
  const messages = native ? request.messages : request.messages.map(withoutExtras);
  let start = 0;
  const system: GeminiPart[] = [];
  let systemExtra: Extra | undefined;
  while (messages[start]?.role === 'system') {
    const message = messages[start] as Message;
    system.push(...writeParts(message.content));
    systemExtra ??= message.extra;
    start++;
  }
  const body: Record<string, unknown> = {
    ...(native ? request.extra : portableExtra(request.extra)),
    contents: writeContents(messages.slice(start)),
  };
  if (system.length > 0) body.systemInstruction = { ...systemExtra, parts: system };
  const tools = writeTools(request.tools);
  if (tools !== undefined) body.tools = tools;
  const config = isRecord(body.generationConfig) ? { ...body.generationConfig } : undefined;
  if (request.maxTokens !== undefined)
    body.generationConfig = { ...config, maxOutputTokens: request.maxTokens };
  else if (config !== undefined) body.generationConfig = config;
  return body as GeminiGenerateContentBody;
}

/** The fields a request read in another format keeps in Gemini's terms (temperature, top_p). */
function portableExtra(extra: Extra): Extra {
  const portable = portableFields(extra);
  const config: Extra = {};
  if (portable.temperature !== undefined) config.temperature = portable.temperature;
  if (portable.top_p !== undefined) config.topP = portable.top_p;
  return Object.keys(config).length > 0 ? { generationConfig: config } : {};
}

function readSystemInstruction(value: unknown): Message {
  if (typeof value === 'string') return { role: 'system', content: value, wire: { stringContent: true } };
  if (!isRecord(value) || !Array.isArray(value.parts))
    throw invalid('"systemInstruction" must be a content with "parts", such as {"parts":[{"text":"…"}]}');
  const extra = extraFields(value, ['parts']);
  return {
    role: 'system',
    content: value.parts.map((part, index) => readPart(part, `systemInstruction part ${index}`)),
    ...(extra ? { extra } : {}),
  };
}

/** A text, thought or other part (not a function call or response). */
function readPart(part: unknown, where: string): ContentPart {
  if (!isRecord(part)) throw invalid(`${where} is not an object`);
  if (typeof part.text === 'string') {
    const extra = extraFields(part, ['text', 'thought']);
    const kind = part.thought === true ? 'reasoning' : 'text';
    return { type: kind, text: part.text, ...(extra ? { extra } : {}) };
  }
  return { type: 'opaque', value: part };
}

interface PendingCall {
  id: string;
  wireId?: string;
  name: string;
  answered: boolean;
}

function readContents(contents: unknown[]): Message[] {
  const messages: Message[] = [];
  let pending: PendingCall[] = [];
  contents.forEach((content, index) => {
    if (!isRecord(content) || !Array.isArray(content.parts))
      throw invalid(`contents[${index}] must be an object with a "parts" array`);
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model')
      throw invalid(`contents[${index}].role must be "user" or "model", got ${JSON.stringify(content.role)}`);
    if (content.role === 'model') {
      const message = readModelTurn(content, index);
      pending = (message.toolCalls ?? []).map((call) => ({
        id: call.id,
        name: call.name,
        answered: false,
        ...(call.id.startsWith(GEMINI_CALL_ID_PREFIX) ? {} : { wireId: call.id }),
      }));
      messages.push(message);
      return;
    }
    messages.push(...readUserTurn(content, index, pending));
    pending = [];
  });
  return messages;
}

function readModelTurn(content: Record<string, unknown>, index: number): AssistantMessage {
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  (content.parts as unknown[]).forEach((part, partIndex) => {
    const where = `contents[${index}].parts[${partIndex}]`;
    if (!isRecord(part) || !isRecord(part.functionCall)) {
      parts.push(readPart(part, where));
      return;
    }
    const call = part.functionCall;
    if (typeof call.name !== 'string') throw invalid(`${where}.functionCall has no "name"`);
    const callFields = extraFields(call, ['id', 'name', 'args']);
    const partFields = extraFields(part, ['functionCall']);
    const extra = { ...(callFields ? { callFields } : {}), ...(partFields ? { partFields } : {}) };
    toolCalls.push({
      id:
        typeof call.id === 'string' && call.id !== ''
          ? call.id
          : `${GEMINI_CALL_ID_PREFIX}${index}-${partIndex}`,
      name: call.name,
      arguments: argumentsText(call.args),
      ...(Object.keys(extra).length > 0 ? { extra } : {}),
    });
  });
  const extra = extraFields(content, ['role', 'parts']);
  return {
    role: 'assistant',
    content: parts,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(extra ? { extra } : {}),
  };
}

/** The call a response answers: the same id, else the first unanswered one of its name, else the first unanswered. */
function answeredCall(pending: PendingCall[], id: unknown, name: unknown): PendingCall | undefined {
  const open = pending.filter((call) => !call.answered);
  return (
    (typeof id === 'string' ? open.find((call) => call.wireId === id) : undefined) ??
    open.find((call) => call.name === name) ??
    open[0]
  );
}

/** The tool message's text: the one string field of `response` (`output`, …), else its JSON. */
function responseContent(response: unknown): { content: string; key?: string } {
  if (isRecord(response)) {
    const keys = Object.keys(response);
    const key = keys[0];
    if (
      keys.length === 1 &&
      key !== undefined &&
      RESPONSE_KEYS.includes(key) &&
      typeof response[key] === 'string'
    )
      return { content: response[key] as string, key };
  }
  return { content: JSON.stringify(response ?? {}) };
}

function readUserTurn(content: Record<string, unknown>, index: number, pending: PendingCall[]): Message[] {
  const tools: ToolMessage[] = [];
  const parts: ContentPart[] = [];
  (content.parts as unknown[]).forEach((part, partIndex) => {
    const where = `contents[${index}].parts[${partIndex}]`;
    if (!isRecord(part) || !isRecord(part.functionResponse)) {
      parts.push(readPart(part, where));
      return;
    }
    const answer = part.functionResponse;
    const call = answeredCall(pending, answer.id, answer.name);
    if (call) call.answered = true;
    const { content: text, key } = responseContent(answer.response);
    const extra = extraFields(answer, ['response']);
    const partExtra = extraFields(part, ['functionResponse']);
    tools.push({
      role: 'tool',
      toolCallId:
        call?.id ??
        (typeof answer.id === 'string' ? answer.id : `${GEMINI_CALL_ID_PREFIX}${index}-${partIndex}`),
      content: text,
      ...(key === 'error' ? { isError: true } : {}),
      ...(extra ? { extra } : {}),
      ...(key !== undefined || partExtra
        ? { wire: { ...(key ? { responseKey: key } : {}), ...(partExtra ? { partExtra } : {}) } }
        : {}),
    });
  });
  const extra = extraFields(content, ['role', 'parts']);
  if (parts.length === 0 && tools.length > 0) return tools;
  const user: UserMessage = {
    role: 'user',
    content: parts,
    ...(extra ? { extra } : {}),
    ...(tools.length > 0 ? { wire: { attached: true } } : {}),
  };
  return [...tools, user];
}

function readTools(value: unknown): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid('"tools" must be an array such as [{"functionDeclarations":[…]}]');
  const definitions: ToolDefinition[] = [];
  value.forEach((tool, index) => {
    if (!isRecord(tool)) throw invalid(`tool ${index} is not an object`);
    const declarations = tool.functionDeclarations;
    if (declarations === undefined) return;
    if (!Array.isArray(declarations)) throw invalid(`tools[${index}].functionDeclarations must be an array`);
    declarations.forEach((declaration, position) => {
      if (!isRecord(declaration) || typeof declaration.name !== 'string')
        throw invalid(`tools[${index}].functionDeclarations[${position}] has no "name"`);
      const definition: ToolDefinition = { name: declaration.name };
      if (typeof declaration.description === 'string') definition.description = declaration.description;
      const parameters = declaration.parametersJsonSchema ?? declaration.parameters;
      if (parameters !== undefined) definition.parameters = parameters;
      rememberOriginal(definition, FORMAT, declaration);
      definitions.push(definition);
    });
  });
  return definitions;
}

/** The `tools` to write: the request's own array when its declarations are the ones read, else rebuilt. */
function writeTools(tools: ToolDefinition[]): GeminiTool[] | undefined {
  const original = originalOf(tools, FORMAT);
  if (Array.isArray(original)) return original as GeminiTool[];
  if (tools.length === 0) return undefined;
  const declarations = tools.map((tool): GeminiFunctionDeclaration => {
    const kept = originalOf(tool, FORMAT);
    if (isRecord(kept)) return kept as GeminiFunctionDeclaration;
    return {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      ...(tool.parameters === undefined ? {} : { parametersJsonSchema: tool.parameters }),
    };
  });
  return [{ functionDeclarations: declarations }];
}

function writeParts(content: Content): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map((part): GeminiPart => {
    if (part.type === 'text') return { ...part.extra, text: part.text };
    if (part.type === 'reasoning') return { ...part.extra, text: part.text, thought: true };
    return (isRecord(part.value) ? part.value : { text: '' }) as GeminiPart;
  });
}

function writeCall(call: ToolCall): GeminiPart {
  const { callFields, partFields } = (call.extra ?? {}) as { callFields?: Extra; partFields?: Extra };
  const functionCall = {
    ...(call.id.startsWith(GEMINI_CALL_ID_PREFIX) ? {} : { id: call.id }),
    name: call.name,
    args: argumentsValue(call.arguments),
    ...callFields,
  };
  return { ...partFields, functionCall } as GeminiPart;
}

function writeResponse(message: ToolMessage, names: Map<string, string>): GeminiPart {
  const text =
    typeof message.content === 'string'
      ? message.content
      : writeParts(message.content)
          .map((part) => part.text ?? '')
          .join('\n');
  const key = message.wire?.responseKey;
  let response: Record<string, unknown>;
  if (key !== undefined) response = { [key]: text };
  else {
    const parsed = argumentsValue(text);
    response = isRecord(parsed) ? parsed : { [message.isError ? 'error' : 'output']: text };
  }
  const { name, ...extra } = message.extra ?? {};
  const functionResponse = {
    ...extra,
    name: typeof name === 'string' ? name : (names.get(message.toolCallId) ?? 'tool'),
    response,
  };
  return { ...message.wire?.partExtra, functionResponse } as GeminiPart;
}

function writeContents(messages: Message[]): GeminiContent[] {
  const contents: GeminiContent[] = [];
  const names = new Map<string, string>();
  /** The last content was written from tool messages (and may take more of them, and attached text). */
  let answering = false;
  for (const message of messages) {
    const last = contents.at(-1);
    switch (message.role) {
      case 'assistant': {
        for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
        const parts = [...writeParts(message.content), ...(message.toolCalls ?? []).map(writeCall)];
        contents.push({ ...message.extra, role: 'model', parts });
        answering = false;
        break;
      }
      case 'tool': {
        const part = writeResponse(message, names);
        if (answering && last) last.parts.push(part);
        else contents.push({ role: 'user', parts: [part] });
        answering = true;
        break;
      }
      default: {
        const parts = writeParts(message.content);
        if (message.role === 'user' && message.wire?.attached && answering && last) last.parts.push(...parts);
        else contents.push({ ...message.extra, role: 'user', parts });
        answering = false;
      }
    }
  }
  return contents;
}
