/**
 * Converts a published SWE-bench-style agent trajectory (a mini-swe-agent `.traj.json` or a SWE-agent
 * `.traj`) to the trajectory fixture format of test/fixtures/trajectories: one header line, then one
 * OpenAI Chat message a line; an assistant line carries the usage its provider reported when the file
 * recorded it.
 *
 * Run: `npx tsx scripts/trim-trajectory.ts <agent> <in> <out> --steps 50 --source '<json>'`
 * with `<agent>` one of `mini-swe-agent`, `swe-agent`.
 *
 * What is kept: the system prompt, the task, assistant text with its tool call, tool output, per-step
 * usage (mini-swe-agent records DeepSeek's `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`).
 * What is dropped: the raw provider responses and timings each message repeats, SWE-agent's
 * demonstration messages (few-shot examples, not the run), mini-swe-agent's final `exit` message (the
 * submitted patch), and everything after `--steps` provider calls.
 *
 * SWE-agent (before function calling) wrote its action as text; it becomes a call of one `bash` tool
 * with the action as its `command`, the way mini-swe-agent calls its own shell, so both agents replay
 * with the same tool.
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface Line {
  message: Record<string, unknown>;
  usage?: { input: number; cacheRead: number; cacheWrite: number; output: number };
  model?: string;
}

interface MiniMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  extra?: { response?: { model?: string; usage?: Record<string, unknown> } };
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) =>
        typeof part === 'object' && part !== null ? String((part as { text?: unknown }).text ?? '') : '',
      )
      .join('\n');
  return '';
}

function miniUsage(usage: Record<string, unknown> | undefined): Line['usage'] | undefined {
  if (usage === undefined) return undefined;
  const prompt = Number(usage.prompt_tokens ?? 0);
  const hit = Number(usage.prompt_cache_hit_tokens ?? 0);
  return { input: prompt - hit, cacheRead: hit, cacheWrite: 0, output: Number(usage.completion_tokens ?? 0) };
}

function fromMini(data: { messages: MiniMessage[] }, steps: number): { lines: Line[]; stopped: boolean } {
  const lines: Line[] = [];
  let calls = 0;
  for (const message of data.messages) {
    if (message.role === 'exit') continue;
    if (message.role === 'assistant') {
      if (calls === steps) return { lines, stopped: true };
      calls++;
      const wire: Record<string, unknown> = { role: 'assistant', content: text(message.content) || null };
      if (message.tool_calls?.length)
        wire.tool_calls = message.tool_calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.function.name, arguments: call.function.arguments },
        }));
      const usage = miniUsage(message.extra?.response?.usage);
      const model = message.extra?.response?.model;
      lines.push({ message: wire, ...(usage ? { usage } : {}), ...(model ? { model } : {}) });
    } else if (message.role === 'tool') {
      lines.push({
        message: { role: 'tool', tool_call_id: message.tool_call_id, content: text(message.content) },
      });
    } else {
      lines.push({ message: { role: message.role, content: text(message.content) } });
    }
  }
  return { lines, stopped: false };
}

interface SweStep {
  action: string;
  observation: string;
  thought?: string;
}

interface SweHistory {
  role: string;
  content: unknown;
  is_demo?: boolean;
}

function fromSweAgent(
  data: { trajectory: SweStep[]; history: SweHistory[] },
  steps: number,
): { lines: Line[]; stopped: boolean } {
  const system = data.history.find((message) => message.role === 'system');
  const task = data.history.find((message) => message.role === 'user' && message.is_demo !== true);
  const lines: Line[] = [];
  if (system) lines.push({ message: { role: 'system', content: text(system.content) } });
  if (task) lines.push({ message: { role: 'user', content: text(task.content) } });
  const kept = data.trajectory.slice(0, steps);
  kept.forEach((step, index) => {
    const id = `call_${index + 1}`;
    lines.push({
      message: {
        role: 'assistant',
        content: (step.thought ?? '').trim() || null,
        tool_calls: [
          {
            id,
            type: 'function',
            function: { name: 'bash', arguments: JSON.stringify({ command: step.action.trim() }) },
          },
        ],
      },
    });
    lines.push({ message: { role: 'tool', tool_call_id: id, content: step.observation ?? '' } });
  });
  return { lines, stopped: data.trajectory.length > steps };
}

function main(): void {
  const [agent, input, output] = process.argv.slice(2);
  const flag = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const steps = Number(flag('--steps') ?? 50);
  const source = JSON.parse(flag('--source') ?? '{}') as Record<string, unknown>;
  if (!agent || !input || !output)
    throw new Error('usage: trim-trajectory.ts <agent> <in> <out> --steps N --source JSON');
  const data = JSON.parse(readFileSync(input, 'utf8'));
  const { lines, stopped } = agent === 'swe-agent' ? fromSweAgent(data, steps) : fromMini(data, steps);
  const calls = lines.filter((line) => line.message.role === 'assistant').length;
  const header = {
    format: 'spillway-transcript-1',
    agent,
    source,
    trimmed: { stoppedAt: stopped ? { reason: `${steps} steps`, line: lines.length } : null, steps: calls },
  };
  writeFileSync(output, `${[header, ...lines].map((line) => JSON.stringify(line)).join('\n')}\n`);
}

main();
