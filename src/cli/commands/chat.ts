import { loadChatConfig } from '../../chat/chat-config.js';
import {
  createConfirmBridge,
  openChatSession,
  readPipedPrompt,
  runInteractiveChat,
  runPrintMode,
  unattendedConfirm,
} from '../../chat/index.js';
import type { Command } from '../command.js';
import { choiceFlag, EXIT_OK, reportError } from '../io.js';
import { limitFlags } from './limit-flags.js';

export const chatCommand: Command = {
  summary:
    'an agent in the terminal against any OpenAI-compatible or Anthropic endpoint, kept inside its window',
  usage: `usage: spillway chat [--base-url URL] [--model ID] [--format openai|anthropic] [--config FILE]
                     [--resume ID] [-p PROMPT [--yes] [--json]] [--context-length N | --hard-context-length N]
                     [--output-cap N | --hard-output-cap N] [--store FILE]

An interactive coding agent with built-in tools (read_file, list_directory, search_text, write_file,
edit_file, run_command; the last three ask first, with a preview) and the MCP servers of the config.
Every request is fitted to the window; overflows are recovered; sessions are saved in the SQLite
store (in sessions.json beside it when better-sqlite3 is not installed). Text piped in is run as the prompt (echo "Summarize README.md" | spillway chat).

  --base-url URL       the API root (default https://api.openai.com/v1, or Anthropic's for --format anthropic)
  --model ID           the model (or "model" in the config)
  --format F           openai (Chat Completions) or anthropic (Messages); default from the URL
  --config FILE        the config file (default ./spillway.config.json, else ~/.config/spillway/config.json)
  --resume ID          continue a saved session (an id prefix is enough)
  -p, --print PROMPT   run one task and print the answer; write_file, edit_file and run_command are refused
  --yes                with -p (or piped input): allow write_file, edit_file and run_command without asking
  --json               with -p: print {"session_id","reason","text","usage"}
  --context-length N   the window when nothing else states it (the server, a gateway, the catalog);
                       --output-cap N the reply cap, likewise
  --hard-context-length N, --hard-output-cap N
                       limits that win over everything, what the server states included
  --store FILE         the session database (default $SPILLWAY_STORE, else ~/.local/share/spillway/sessions.db)

API key: the config's api_key, else SPILLWAY_API_KEY, else OPENAI_API_KEY / ANTHROPIC_API_KEY.
In the chat: /compact /context /limits /cost /model [ID] /sessions /resume ID /clear /help /quit;
a line ending in \\ continues; Ctrl+C cancels a reply.`,
  options: {
    'base-url': { type: 'string' },
    model: { type: 'string' },
    format: { type: 'string' },
    config: { type: 'string' },
    resume: { type: 'string' },
    print: { type: 'string', short: 'p' },
    yes: { type: 'boolean' },
    json: { type: 'boolean' },
    'context-length': { type: 'string' },
    'output-cap': { type: 'string' },
    'hard-context-length': { type: 'string' },
    'hard-output-cap': { type: 'string' },
    store: { type: 'string' },
  },
  async run({ values }) {
    const config = await loadChatConfig({
      ...(values.config === undefined ? {} : { file: values.config as string }),
    });
    const format = choiceFlag(values.format as string | undefined, 'format', [
      'openai',
      'anthropic',
    ] as const);
    const { config: soft, hard } = limitFlags(values);
    const flags = {
      ...(values['base-url'] === undefined ? {} : { baseUrl: values['base-url'] as string }),
      ...(values.model === undefined ? {} : { model: values.model as string }),
      ...(format === undefined ? {} : { format }),
      ...soft,
      ...(hard.contextLength === undefined ? {} : { hardContextLength: hard.contextLength }),
      ...(hard.outputCap === undefined ? {} : { hardOutputCap: hard.outputCap }),
      ...(values.store === undefined ? {} : { store: values.store as string }),
      ...(values.resume === undefined ? {} : { resume: values.resume as string }),
    };
    const prompt = await readPipedPrompt({
      ...(values.print === undefined ? {} : { prompt: values.print as string }),
      stdin: process.stdin,
    });
    if (prompt !== undefined) {
      const printer = createPrintNotices();
      const chat = await openChatSession({
        config,
        flags,
        confirm: unattendedConfirm({ yes: values.yes === true }),
        onNotice: printer,
      });
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      try {
        const { error } = await runPrintMode({
          chat,
          prompt,
          json: values.json === true,
          signal: controller.signal,
        });
        return error ? reportError(error) : EXIT_OK;
      } finally {
        process.off('SIGINT', stop);
        await chat.close();
      }
    }
    const bridge = createConfirmBridge();
    const notices: string[] = [];
    const chat = await openChatSession({
      config,
      flags,
      confirm: bridge.confirm,
      onCommandOutput: bridge.commandOutput,
      onNotice: (notice) => notices.push(`· ${notice.text}`),
    });
    for (const notice of notices) process.stdout.write(`${notice}\n`);
    try {
      return await runInteractiveChat({ chat, confirm: bridge });
    } finally {
      await chat.close();
    }
  },
};

/** Start-up notices of `-p` go to stderr, and only when a person watches it. */
function createPrintNotices(): (notice: { text: string }) => void {
  return (notice) => {
    if (process.stderr.isTTY) process.stderr.write(`· ${notice.text}\n`);
  };
}
