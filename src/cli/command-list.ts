/**
 * @module
 * The `spillway` commands by name, each with the line the command list shows: `spillway --help`
 * prints them without loading any command (a command loads the library parts it needs when it runs).
 */
import type { Command } from './command.js';

/** A command's entry: its one-line summary (the command's own `summary`) and how it is loaded. */
export interface CommandEntry {
  summary: string;
  load: () => Promise<Command>;
}

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  classify: {
    summary: 'classify a provider error: context, budget, output_cap or none, with its figures',
    load: async () => (await import('./commands/classify.js')).classifyCommand,
  },
  estimate: {
    summary: 'token estimate of a request (OpenAI Chat, OpenAI Responses or Anthropic Messages JSON)',
    load: async () => (await import('./commands/estimate.js')).estimateCommand,
  },
  fit: {
    summary: 'the request fitted to the window (oldest whole turns pruned, max_tokens clamped)',
    load: async () => (await import('./commands/fit.js')).fitCommand,
  },
  emulate: {
    summary:
      "run a backend emulator: a real server's limits, overflow errors and a scripted model on loopback",
    load: async () => (await import('./commands/emulate.js')).emulateCommand,
  },
  chat: {
    summary:
      'an agent in the terminal against any OpenAI-compatible or Anthropic endpoint, kept inside its window',
    load: async () => (await import('./commands/chat.js')).chatCommand,
  },
  demo: {
    summary:
      'the embedded default: a scripted agent session against an emulated backend, plain and through Spillway',
    load: async () => (await import('./commands/demo.js')).demoCommand,
  },
  serve: {
    summary: 'run the proxy: an OpenAI-compatible endpoint that fits every request before it goes upstream',
    load: async () => (await import('./commands/serve.js')).serveCommand,
  },
  wrap: {
    summary: 'run an agent (claude, codex, opencode, pi, gemini, any OpenAI client) through a Spillway proxy',
    load: async () => (await import('./commands/wrap.js')).wrapCommand,
  },
  limits: {
    summary: 'the window and output cap in force for a model, and where each came from',
    load: async () => (await import('./commands/limits.js')).limitsCommand,
  },
};

const USAGE = `spillway — keep LLM agent loops inside the context window

usage: spillway <command> [options]   (every command: --help; --json for errors as JSON)

commands:
`;

/** The command list `spillway --help` prints. */
export function commandListUsage(): string {
  const lines = Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(10)} ${entry.summary}`);
  return `${USAGE}${lines.join('\n')}\n`;
}
