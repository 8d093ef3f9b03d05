/**
 * @module
 * The scripted model that drives real agent clients (Claude Code, Codex, opencode, pi, Gemini CLI…)
 * with whatever tools they offer. It recognises a shell tool and a read tool by name and schema,
 * shapes its arguments to that schema (a `command` string or argv array, a `file_path`, `filePath`
 * or `path`, absolute when the working directory is known, required fields filled in), and works
 * through the task of the newest prompt: it looks at the working directory, reads every file the
 * prompt names, writes their line counts with the shell, and answers in one sentence. Progress comes
 * from the conversation (assistant turns, and the reply index carried in tool-call ids), so a client
 * that prunes or compacts its history never sends the script backwards.
 */
import type { ResolvedReply, Script } from './script.js';

type Json = Record<string, unknown>;

/** A tool a request offers: its name and JSON Schema. */
export interface OfferedTool {
  name: string;
  parameters: Json;
}

/** Shell tools of real clients, by name (Claude Code, pi, opencode: bash; Codex: shell, shell_command, exec_command; Gemini CLI: run_shell_command). */
const SHELL_NAMES = ['bash', 'shell', 'shell_command', 'exec_command', 'run_shell_command', 'local_shell'];
/** Read tools, by name (Claude Code: Read; pi, opencode: read; Gemini CLI: read_file). */
const READ_NAMES = ['read', 'read_file', 'readfile', 'read_text_file'];
const COMMAND_KEYS = ['command', 'cmd', 'commands', 'script'];
const PATH_KEYS = ['file_path', 'filePath', 'absolute_path', 'path', 'file'];
/** Where the clients' prompts state the working directory ("Working directory: /x", `<cwd>/x</cwd>`). */
const CWD_PATTERN = /(?:working directory:\s*|<cwd>)(\/[^\s<"']+)/i;
/** File names a prompt can name: a word with an extension. */
const FILE_PATTERN = /(?<![\w/])[\w][\w.-]*\.(?:txt|md|json|log|csv|ts|js|py)\b/g;
/** Where the shell step writes the line counts. */
export const GENERIC_RESULT_FILE = 'line-counts.txt';

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The tools a chat, Anthropic or converted Responses body offers. */
export function offeredTools(body: Json): OfferedTool[] {
  const tools: OfferedTool[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isRecord(tool)) continue;
    const fn = isRecord(tool.function) ? tool.function : tool;
    const parameters = fn.parameters ?? fn.input_schema;
    if (typeof fn.name === 'string')
      tools.push({ name: fn.name, parameters: isRecord(parameters) ? parameters : {} });
  }
  return tools;
}

function properties(tool: OfferedTool): Json {
  return isRecord(tool.parameters.properties) ? tool.parameters.properties : {};
}

/** The tool named as one of `names`, else one whose name contains `word` and whose schema has one of `keys`. */
function findTool(
  tools: OfferedTool[],
  names: string[],
  word: string,
  keys: string[],
): OfferedTool | undefined {
  const named = tools.find((tool) => names.includes(tool.name.toLowerCase()));
  if (named) return named;
  return tools.find(
    (tool) => tool.name.toLowerCase().includes(word) && keys.some((key) => key in properties(tool)),
  );
}

/** The shell and read tools a request offers, when it offers a shell tool a real client names so. */
export function recogniseTools(tools: OfferedTool[]): { shell?: OfferedTool; read?: OfferedTool } {
  const shell = findTool(tools, SHELL_NAMES, 'shell', COMMAND_KEYS);
  const read = findTool(tools, READ_NAMES, 'read', PATH_KEYS);
  return { ...(shell ? { shell } : {}), ...(read ? { read } : {}) };
}

/** Whether a request is one the generic agent should answer (it offers a shell tool by a client's name). */
export function offersClientTools(body: Json): boolean {
  return recogniseTools(offeredTools(body)).shell !== undefined;
}

/** A value for a required field the step does not set, by its schema type. */
function filler(key: string, schema: unknown): unknown {
  const type = isRecord(schema) ? schema.type : undefined;
  if (type === 'number' || type === 'integer') return /timeout/i.test(key) ? 60_000 : 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'object') return {};
  return 'Runs one step of the task.';
}

function argumentsFor(tool: OfferedTool, set: Json): string {
  const args: Json = { ...set };
  const required = Array.isArray(tool.parameters.required) ? tool.parameters.required : [];
  const props = properties(tool);
  for (const key of required)
    if (typeof key === 'string' && !(key in args)) args[key] = filler(key, props[key]);
  return JSON.stringify(args);
}

function shellCall(tool: OfferedTool, command: string): { name: string; arguments: string } {
  const props = properties(tool);
  const key = COMMAND_KEYS.find((candidate) => candidate in props) ?? 'command';
  const array = isRecord(props[key]) && props[key].type === 'array';
  return {
    name: tool.name,
    arguments: argumentsFor(tool, { [key]: array ? ['bash', '-lc', command] : command }),
  };
}

function readCall(tool: OfferedTool, path: string): { name: string; arguments: string } {
  const key = PATH_KEYS.find((candidate) => candidate in properties(tool)) ?? 'path';
  return { name: tool.name, arguments: argumentsFor(tool, { [key]: path }) };
}

/**
 * Texts of wire messages (chat or Anthropic), oldest first; with a role, only that role's own text
 * (an Anthropic user message's tool results are not the user's words).
 */
function texts(messages: readonly unknown[], role?: string): string[] {
  const out: string[] = [];
  const add = (content: unknown): void => {
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content))
      for (const part of content)
        if (isRecord(part) && !(role !== undefined && part.type === 'tool_result'))
          add(part.text ?? part.content);
  };
  for (const message of messages)
    if (isRecord(message) && (role === undefined || message.role === role)) add(message.content);
  return out;
}

/**
 * Notices a cut leaves in a user message where messages were left out (`[pruned #3: 4 earlier
 * messages (2 turns) left out to fit the window]`, `[truncated #4: …]`): they say what is missing and
 * ask for nothing, so a model reading on keeps to the task above them.
 */
const LEFT_OUT_NOTICE = /^\[(?:pruned|truncated) #\d+:/;

/**
 * The task: the newest user text that is neither a block a client injected (`<system-reminder>`,
 * `<environment_context>`…) nor a notice of left-out messages.
 */
function taskText(messages: readonly unknown[]): string {
  const own = texts(messages, 'user').filter((text) => {
    const start = text.trimStart();
    return !start.startsWith('<') && !LEFT_OUT_NOTICE.test(start);
  });
  return own.at(-1) ?? '';
}

/**
 * The reply for step `step` of the task the conversation holds, shaped for the tools offered.
 *
 * @example
 * genericAgentReply({ tools: offeredTools(body), messages: body.messages, step: 0 }); // a shell call: pwd && ls
 */
export function genericAgentReply({
  tools,
  messages,
  step,
}: {
  tools: OfferedTool[];
  messages: readonly unknown[];
  step: number;
}): ResolvedReply {
  const { shell, read } = recogniseTools(tools);
  const files = [...new Set(taskText(messages).match(FILE_PATTERN) ?? [])];
  const cwd = CWD_PATTERN.exec(texts(messages).join('\n'))?.[1];
  const plan: { text: string; call?: { name: string; arguments: string } }[] = [];
  if (shell) plan.push({ text: 'Looking at the working directory.', call: shellCall(shell, 'pwd && ls') });
  for (const file of files) {
    const path = cwd ? `${cwd.replace(/\/$/, '')}/${file}` : file;
    if (read) plan.push({ text: `Reading ${file}.`, call: readCall(read, path) });
    else if (shell) plan.push({ text: `Reading ${file}.`, call: shellCall(shell, `cat ${file}`) });
  }
  if (shell && files.length > 0)
    plan.push({
      text: `Writing the line counts to ${GENERIC_RESULT_FILE}.`,
      call: shellCall(shell, `wc -l ${files.join(' ')} > ${GENERIC_RESULT_FILE}`),
    });
  const done =
    files.length > 0
      ? `Done: I read ${files.join(', ')} and wrote their line counts to ${GENERIC_RESULT_FILE}.`
      : 'Done: I looked at the working directory.';
  const entry = plan[step];
  if (entry === undefined) return { reasoning: '', text: done, toolCalls: [] };
  return { reasoning: '', text: entry.text, toolCalls: entry.call ? [entry.call] : [] };
}

/**
 * The script that asks for the generic agent: every reply computed from the request's tools.
 *
 * @example
 * startEmulator({ profile: 'anthropic', script: genericAgentScript() });
 */
export function genericAgentScript(): Script {
  return { replies: [], agent: 'generic' };
}
