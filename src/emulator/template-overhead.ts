import { renderChatTemplate, type TemplateInput, type TemplateMessage } from './chat-template.js';
import { countRenderedTokens } from './count-prompt-tokens.js';
import { getTokenizer, type TokenizerName } from './tokenizer.js';

/** Smallest, largest and mean overhead over the samples measured. */
export interface OverheadStats {
  min: number;
  max: number;
  mean: number;
  samples: number;
}

/**
 * Tokens the emulators' chat template adds on top of content, in the terms of the estimator's
 * constants (`MESSAGE_OVERHEAD`, `TOOL_CALL_OVERHEAD`, `TOOL_DEFINITION_OVERHEAD`, `REQUEST_OVERHEAD`).
 */
export interface TemplateOverhead {
  tokenizer: TokenizerName;
  /** A system, user or assistant text message: its rendered tokens minus its content's tokens. */
  message: OverheadStats;
  /** A tool call in an assistant turn: rendered tokens minus those of its name and JSON arguments
   * (the Qwen template does not render call ids, so an estimator's id tokens are pure margin). */
  toolCall: OverheadStats;
  /** A tool result: rendered tokens minus its content's (the first of a run opens a user turn). */
  toolResult: OverheadStats;
  /** A tool schema: rendered tokens minus those of `JSON.stringify({ name, description, parameters })`. */
  toolSchema: OverheadStats;
  /** Once per request: `base` the generation prompt, `toolsBlock` the tools preamble when any tool is
   * declared, `defaultSystem` the system prompt the template inserts when a request has none. */
  request: { base: number; toolsBlock: number; defaultSystem: number };
}

const TEXTS = [
  'Fix the failing test in src/budget.test.ts.',
  'You are a coding agent. Read files before you change them, run the tests after every change, and keep diffs small.',
  'I looked at the configuration and the limit is read from the environment before the defaults are applied.',
  'export function clamp(value: number, min: number, max: number): number {\n  return Math.min(max, Math.max(min, value));\n}',
  'Done. The window is now read from /v1/models and the request is pruned to fit; all 214 tests pass.',
  '日本語のテキストも数えます。',
];
const CALLS = [
  { name: 'read_file', arguments: { path: 'src/index.ts' } },
  { name: 'search', arguments: { query: 'maxTokens', path: 'src', case_sensitive: false } },
  { name: 'run', arguments: { command: 'npm test -- --reporter=dot', timeout_ms: 120000 } },
  {
    name: 'edit_file',
    arguments: { path: 'src/a.ts', old: 'const a = 1;', new: 'const a = 2;\nconst b = a * 2;' },
  },
];
const RESULTS = [
  'ok',
  '  1\timport { x } from "./x.js";\n  2\texport const y = x + 1;',
  '{"matches": 3, "files": ["a.ts", "b.ts"]}',
  TEXTS[4] as string,
];
const TOOLS = [
  {
    name: 'read_file',
    description: 'Read a file of the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'Path relative to the root' } },
      required: ['path'],
    },
  },
  {
    name: 'search',
    description: 'Search the workspace with a regular expression.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string' }, path: { type: 'string' } },
      required: ['query'],
    },
  },
  {
    name: 'run',
    description: 'Run a shell command and return its output.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' }, timeout_ms: { type: 'integer', minimum: 1 } },
      required: ['command'],
    },
  },
  { name: 'noop', parameters: { type: 'object', properties: {} } },
];

function stats(values: number[]): OverheadStats {
  const total = values.reduce((sum, value) => sum + value, 0);
  return {
    min: Math.min(...values),
    max: Math.max(...values),
    mean: Math.round((total / values.length) * 100) / 100,
    samples: values.length,
  };
}

function tool(definition: (typeof TOOLS)[number]): unknown {
  return {
    type: 'function',
    function: {
      name: definition.name,
      description: definition.description ?? null,
      parameters: definition.parameters,
    },
  };
}

/**
 * Measures the template overhead by rendering sample requests with and without one element and
 * counting both with the real tokenizer: the difference minus the element's own content is what the
 * template added. Use it to tune an estimator's overhead constants (take `max` to stay safe).
 *
 * @example
 * import { measureTemplateOverhead } from 'spillway/testing';
 * const overhead = measureTemplateOverhead();
 * console.log(overhead.message.max, overhead.toolCall.max, overhead.toolSchema.max, overhead.request);
 */
export function measureTemplateOverhead({
  tokenizer: name = 'o200k',
}: {
  tokenizer?: TokenizerName;
} = {}): TemplateOverhead {
  const tokenizer = getTokenizer(name);
  const count = (input: TemplateInput): number => countRenderedTokens(renderChatTemplate(input), tokenizer);
  const base: TemplateMessage[] = [{ role: 'system', content: TEXTS[1] as string }];
  const message: number[] = [];
  for (const role of ['user', 'assistant', 'system'])
    for (const text of TEXTS) {
      const before = count({ messages: [...base, { role: 'user', content: 'hi' }], tools: [] });
      const after = count({
        messages: [...base, { role: 'user', content: 'hi' }, { role, content: text }],
        tools: [],
      });
      message.push(after - before - tokenizer.count(text));
    }
  const toolCall: number[] = [];
  for (const text of ['', TEXTS[2] as string])
    for (const call of CALLS) {
      const assistant = { role: 'assistant', content: text };
      const before = count({ messages: [...base, assistant], tools: [] });
      const after = count({ messages: [...base, { ...assistant, toolCalls: [call] }], tools: [] });
      toolCall.push(
        after - before - tokenizer.count(call.name) - tokenizer.count(JSON.stringify(call.arguments)),
      );
    }
  const toolResult: number[] = [];
  const caller = { role: 'assistant', content: '', toolCalls: [CALLS[0] as (typeof CALLS)[number]] };
  for (const result of RESULTS)
    for (const previous of [[], [{ role: 'tool', content: 'earlier result' }]]) {
      const before = count({ messages: [...base, caller, ...previous], tools: [] });
      const after = count({
        messages: [...base, caller, ...previous, { role: 'tool', content: result }],
        tools: [],
      });
      toolResult.push(after - before - tokenizer.count(result));
    }
  const toolSchema: number[] = [];
  const first = tool(TOOLS[0] as (typeof TOOLS)[number]);
  const messages = [...base, { role: 'user', content: 'hi' }];
  for (const definition of TOOLS) {
    const before = count({ messages, tools: [first] });
    const after = count({ messages, tools: [first, tool(definition)] });
    const own = JSON.stringify({
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
    });
    toolSchema.push(after - before - tokenizer.count(own));
  }
  const messageOverhead = (content: string): number =>
    count({ messages: [{ role: 'system', content }], tools: [] }) - tokenizer.count(content);
  const systemOnly = messageOverhead(TEXTS[1] as string);
  const generationPrompt = countRenderedTokens('<|im_start|>assistant\n', tokenizer);
  const firstOwn = JSON.stringify({
    name: TOOLS[0]?.name,
    description: TOOLS[0]?.description,
    parameters: TOOLS[0]?.parameters,
  });
  const withTool = count({ messages: base, tools: [first] }) - count({ messages: base, tools: [] });
  const firstSchema = toolSchema[0] ?? 0;
  const userOnly = count({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
  const userWithSystem = count({ messages: [...base, { role: 'user', content: 'hi' }], tools: [] });
  return {
    tokenizer: name,
    message: stats(message),
    toolCall: stats(toolCall),
    toolResult: stats(toolResult),
    toolSchema: stats(toolSchema),
    request: {
      base: generationPrompt,
      toolsBlock: withTool - tokenizer.count(firstOwn) - firstSchema,
      // userWithSystem minus its system turn is the user turn plus the generation prompt.
      defaultSystem:
        userOnly - (userWithSystem - (systemOnly - generationPrompt + tokenizer.count(TEXTS[1] as string))),
    },
  };
}
