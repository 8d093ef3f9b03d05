/**
 * @module
 * The AI SDK's language-model (specification v3) types, derived from `ai`'s `LanguageModelMiddleware`
 * so that `ai` is the only package a caller needs for them.
 */
import type { LanguageModelMiddleware } from 'ai';

type TransformParamsOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0];

/** `LanguageModelV3CallOptions`: what a model's `doGenerate` / `doStream` takes. */
export type LanguageModelCallOptions = TransformParamsOptions['params'];
/** `LanguageModelV3`: the model a middleware wraps. */
export type LanguageModelInstance = TransformParamsOptions['model'];
/** `LanguageModelV3Prompt`: the messages of one call. */
export type LanguageModelPrompt = LanguageModelCallOptions['prompt'];
/** One message of a {@link LanguageModelPrompt}. */
export type LanguageModelMessage = LanguageModelPrompt[number];
/** A function or provider tool of a call. */
export type LanguageModelTool = NonNullable<LanguageModelCallOptions['tools']>[number];

type RoleMessage<Role extends LanguageModelMessage['role']> = Extract<LanguageModelMessage, { role: Role }>;
/** A part of a user message: text or a file. */
export type UserPart = RoleMessage<'user'>['content'][number];
/** A part of an assistant message: text, file, reasoning, tool call, provider-executed tool result. */
export type AssistantPart = RoleMessage<'assistant'>['content'][number];
/** A part of a tool message: a tool result or a tool-approval response. */
export type ToolPart = RoleMessage<'tool'>['content'][number];
/** A tool result part. */
export type ToolResultPart = Extract<ToolPart, { type: 'tool-result' }>;
/** The output of a tool result. */
export type ToolResultOutput = ToolResultPart['output'];
/** A file part. */
export type FilePart = Extract<UserPart, { type: 'file' }>;

/** What `doGenerate` resolves with. */
export type GenerateResult = Awaited<ReturnType<LanguageModelInstance['doGenerate']>>;
/** What `doStream` resolves with. */
export type StreamResult = Awaited<ReturnType<LanguageModelInstance['doStream']>>;
/** One part of a model's output stream. */
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
