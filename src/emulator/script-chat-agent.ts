/**
 * @module
 * The scripted model `spillway chat` meets when the emulator runs without a script: for each
 * prompt it lists the project, reads a file the listing showed, searches for a word of the prompt,
 * and answers in a sentence naming what it did. Its arguments are filled in from the conversation
 * (placeholders in the script), so every call is one chat's own tools accept on any project.
 */
import type { Script } from './script.js';

/** The tool names that mark a request as coming from `spillway chat`. */
export const CHAT_TOOL_NAMES = ['read_file', 'list_directory', 'search_text'] as const;

/** Whether a request declares chat's own file tools. */
export function declaresChatTools(declaredTools: readonly string[]): boolean {
  return CHAT_TOOL_NAMES.every((name) => declaredTools.includes(name));
}

/**
 * The chat script: four replies a prompt, repeated for every prompt (`after: 'cycle'`, by
 * assistant turns). `{{listed_file}}` and `{{prompt_word}}` are filled from the conversation.
 *
 * @example
 * startEmulator({ profile: 'vllm', script: chatAgentScript() });
 */
export function chatAgentScript(): Script {
  return {
    replies: [
      {
        text: 'I will look at the project first.',
        toolCalls: [{ name: 'list_directory', arguments: { path: '.' } }],
      },
      {
        text: 'Reading {{listed_file}}.',
        toolCalls: [{ name: 'read_file', arguments: { path: '{{listed_file}}' } }],
      },
      {
        text: 'Searching the project for "{{prompt_word}}".',
        toolCalls: [{ name: 'search_text', arguments: { query: '{{prompt_word}}' } }],
      },
      {
        text: 'I listed the project, read {{listed_file}} and searched it for "{{prompt_word}}". This is a scripted model from spillway emulate: it runs the tools, it does not understand the files.',
      },
    ],
    selectBy: 'assistant-turns',
    after: 'cycle',
    adaptToTools: true,
  };
}
