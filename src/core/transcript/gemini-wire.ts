/**
 * @module
 * The Gemini API's `generateContent` request body (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent`), typed as the REST reference describes it: `contents` of `user` and
 * `model` turns made of parts, an optional `systemInstruction`, `tools` holding
 * `functionDeclarations`, and `generationConfig.maxOutputTokens`. Every field Spillway does not
 * interpret is carried through, so each shape is open.
 */

/** A function call the model asked for (`id` is optional: the Gemini API often leaves it out). */
export interface GeminiFunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The answer to a function call; `response` is a JSON object (Gemini CLI: `{"output": …}`). */
export interface GeminiFunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
  [field: string]: unknown;
}

/** One part of a turn: text (a thought when `thought` is true), a function call or response, data. */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  [field: string]: unknown;
}

/** A turn of the conversation. */
export interface GeminiContent {
  role?: 'user' | 'model';
  parts: GeminiPart[];
  [field: string]: unknown;
}

/** A function the model may call; its schema in `parameters` (OpenAPI subset) or `parametersJsonSchema`. */
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: unknown;
  parametersJsonSchema?: unknown;
  [field: string]: unknown;
}

/** A tool entry: function declarations, or a built-in tool (`googleSearch`, `codeExecution`, …). */
export interface GeminiTool {
  functionDeclarations?: GeminiFunctionDeclaration[];
  [field: string]: unknown;
}

/** A `generateContent` request body (the model is in the URL, never in the body). */
export interface GeminiGenerateContentBody {
  contents: GeminiContent[];
  systemInstruction?: GeminiContent;
  tools?: GeminiTool[];
  generationConfig?: { maxOutputTokens?: number; [field: string]: unknown };
  [field: string]: unknown;
}
