/**
 * @module
 * A normalized request as each server's counting endpoint takes it. Each builder returns the path and
 * the JSON body; the shapes come from the servers' own sources and docs (cited per builder).
 */
import { type ChatRequest, contentText, type Message, toAnthropic, toOpenAIChat } from '../core/index.js';

/** The counting endpoints Spillway knows. */
export type CountEndpointKind = 'vllm' | 'sglang' | 'llamacpp' | 'tgi' | 'anthropic' | 'openai' | 'gemini';

/** One HTTP call of a count: where, what, and how to read the answer. */
export interface CountCall {
  path: string;
  body: Record<string, unknown>;
  /** The token count in a 2xx JSON answer, or `undefined` when the answer is not that endpoint's. */
  read(answer: unknown): number | undefined;
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The Chat Completions fields a template reads: messages and tools, nothing about generation. */
function chatFields(request: ChatRequest): Json {
  const body = toOpenAIChat(request) as unknown as Json;
  return {
    messages: body.messages,
    ...(Array.isArray(body.tools) && body.tools.length > 0 ? { tools: body.tools } : {}),
  };
}

/**
 * vLLM `POST /tokenize` with `messages` (`TokenizeChatRequest` in
 * vllm/entrypoints/openai/protocol.py): the server applies the model's chat template, tools included,
 * and answers `TokenizeResponse` `{count, max_model_len, tokens}`.
 */
function vllm(request: ChatRequest, model: string | undefined): CountCall[] {
  return [
    {
      path: '/tokenize',
      body: { ...(model ? { model } : {}), ...chatFields(request), add_generation_prompt: true },
      read: (answer) => (isRecord(answer) ? count(answer.count) : undefined),
    },
  ];
}

/**
 * llama.cpp: `POST /apply-template` with `messages` (and tools) answers `{prompt}` rendered with the
 * model's template; `POST /tokenize` with `{content, add_special, parse_special}` answers `{tokens}`
 * (tools/server/README.md). Two calls: the second is built from the first's answer.
 */
function llamacpp(request: ChatRequest): CountCall[] {
  return [
    {
      path: '/apply-template',
      body: chatFields(request),
      read: () => undefined,
    },
  ];
}

/** The `/tokenize` call that follows llama.cpp's `/apply-template`. */
export function llamacppTokenizeCall(prompt: string): CountCall {
  return {
    path: '/tokenize',
    // BOS as the server adds it for a completion; template tokens such as <|im_start|> as specials.
    body: { content: prompt, add_special: true, parse_special: true },
    read: (answer) => (isRecord(answer) && Array.isArray(answer.tokens) ? answer.tokens.length : undefined),
  };
}

/**
 * TGI `POST /chat_tokenize` with a Chat Completions body (router/src/server.rs,
 * `get_chat_tokenize`): the server applies the template and answers
 * `{tokenize_response: [{id, text, start, stop}…], templated_text}`.
 */
function tgi(request: ChatRequest, model: string | undefined): CountCall[] {
  return [
    {
      path: '/chat_tokenize',
      body: { model: model ?? 'tgi', ...chatFields(request) },
      read: (answer) =>
        isRecord(answer) && Array.isArray(answer.tokenize_response)
          ? answer.tokenize_response.length
          : undefined,
    },
  ];
}

/**
 * SGLang `POST /tokenize` (`TokenizeReqInput`, `{model, prompt, add_special_tokens}` → `{tokens,
 * count, max_model_len}`; python/sglang/srt/entrypoints/http_server.py) tokenizes text without a chat
 * template: the messages' text is counted, and the caller adds the template's own cost.
 */
function sglang(request: ChatRequest, model: string | undefined): CountCall[] {
  const text = [
    ...request.messages.map((message) => messageText(message)),
    ...request.tools.map((tool) => JSON.stringify(tool)),
  ].join('\n');
  return [
    {
      path: '/tokenize',
      body: { ...(model ? { model } : {}), prompt: text, add_special_tokens: false },
      read: (answer) => (isRecord(answer) ? count(answer.count) : undefined),
    },
  ];
}

function messageText(message: Message): string {
  const calls = message.role === 'assistant' ? (message.toolCalls ?? []) : [];
  return [contentText(message.content), ...calls.map((call) => `${call.name} ${call.arguments}`)].join('\n');
}

/**
 * Anthropic `POST /v1/messages/count_tokens` ("Token counting" in the Messages API reference): the
 * Messages body's `model`, `messages`, `system`, `tools` (and `thinking`, `tool_choice`) →
 * `{input_tokens}`.
 */
function anthropic(request: ChatRequest, model: string | undefined): CountCall[] {
  const body = toAnthropic(request) as unknown as Json;
  const fields: Json = { model: model ?? body.model, messages: body.messages };
  for (const key of ['system', 'tools', 'thinking', 'tool_choice'])
    if (body[key] !== undefined) fields[key] = body[key];
  return [
    {
      path: '/v1/messages/count_tokens',
      body: fields,
      read: (answer) => (isRecord(answer) ? count(answer.input_tokens) : undefined),
    },
  ];
}

/**
 * OpenAI `POST /v1/responses/input_tokens` (API reference, "Responses → Input token counts"): a
 * Responses body (`model`, `input` items, `instructions`, `tools`) → `{object:
 * "response.input_tokens", input_tokens}`. Chat messages become Responses items: system text as
 * `instructions`, messages as `{role, content}`, tool calls as `function_call`, results as
 * `function_call_output`.
 */
function openai(request: ChatRequest, model: string | undefined): CountCall[] {
  const instructions: string[] = [];
  const input: Json[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') instructions.push(contentText(message.content));
    else if (message.role === 'tool')
      input.push({
        type: 'function_call_output',
        call_id: message.toolCallId,
        output: contentText(message.content),
      });
    else {
      const text = contentText(message.content);
      if (text !== '' || message.role === 'user') input.push({ role: message.role, content: text });
      if (message.role === 'assistant')
        for (const call of message.toolCalls ?? [])
          input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
    }
  }
  const tools = request.tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  }));
  return [
    {
      path: '/v1/responses/input_tokens',
      body: {
        model: model ?? request.model,
        input,
        ...(instructions.length > 0 ? { instructions: instructions.join('\n\n') } : {}),
        ...(tools.length > 0 ? { tools } : {}),
      },
      read: (answer) => (isRecord(answer) ? count(answer.input_tokens) : undefined),
    },
  ];
}

/**
 * Gemini `POST /v1beta/models/{model}:countTokens` with a `generateContentRequest` (API reference,
 * "Counting tokens"): `contents` with roles `user` and `model`, `systemInstruction`, `tools` →
 * `{totalTokens}`.
 */
function gemini(request: ChatRequest, model: string | undefined): CountCall[] {
  const name = (model ?? request.model ?? '').replace(/^models\//, '');
  const callNames = new Map<string, string>();
  const contents: Json[] = [];
  const system: string[] = [];
  for (const message of request.messages) {
    if (message.role === 'system') system.push(contentText(message.content));
    else if (message.role === 'tool')
      contents.push({
        role: 'user',
        parts: [
          {
            functionResponse: {
              name: callNames.get(message.toolCallId) ?? 'tool',
              response: { result: contentText(message.content) },
            },
          },
        ],
      });
    else {
      const parts: Json[] = [];
      const text = contentText(message.content);
      if (text !== '') parts.push({ text });
      if (message.role === 'assistant')
        for (const call of message.toolCalls ?? []) {
          callNames.set(call.id, call.name);
          parts.push({ functionCall: { name: call.name, args: parseArguments(call.arguments) } });
        }
      contents.push({
        role: message.role === 'assistant' ? 'model' : 'user',
        parts: parts.length > 0 ? parts : [{ text: '' }],
      });
    }
  }
  const tools =
    request.tools.length > 0
      ? [
          {
            functionDeclarations: request.tools.map((tool) => ({
              name: tool.name,
              ...(tool.description === undefined ? {} : { description: tool.description }),
              ...(tool.parameters === undefined ? {} : { parameters: tool.parameters }),
            })),
          },
        ]
      : undefined;
  return [
    {
      path: `/v1beta/models/${encodeURIComponent(name)}:countTokens`,
      body: {
        generateContentRequest: {
          model: `models/${name}`,
          contents,
          ...(system.length > 0 ? { systemInstruction: { parts: [{ text: system.join('\n\n') }] } } : {}),
          ...(tools ? { tools } : {}),
        },
      },
      read: (answer) => (isRecord(answer) ? count(answer.totalTokens) : undefined),
    },
  ];
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { arguments: text };
  }
}

/** The calls that count `request` on a server of `kind`. */
export function countCallsFor(
  kind: CountEndpointKind,
  request: ChatRequest,
  model: string | undefined,
): CountCall[] {
  switch (kind) {
    case 'vllm':
      return vllm(request, model);
    case 'sglang':
      return sglang(request, model);
    case 'llamacpp':
      return llamacpp(request);
    case 'tgi':
      return tgi(request, model);
    case 'anthropic':
      return anthropic(request, model);
    case 'openai':
      return openai(request, model);
    case 'gemini':
      return gemini(request, model);
  }
}
