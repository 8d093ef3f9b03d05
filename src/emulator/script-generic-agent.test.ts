import { describe, expect, it } from 'vitest';
import { codingAgentScript } from './script.js';
import { genericAgentReply, offeredTools, recogniseTools } from './script-generic-agent.js';
import { answersAsGenericAgent } from './script-select.js';

const TASK = 'Read a.txt and b.txt and write their line counts to a file.';

/** Claude Code's tools, as it declares them (Anthropic format, trimmed). */
const claudeBody = {
  tools: [
    {
      name: 'Bash',
      input_schema: {
        type: 'object',
        properties: { command: { type: 'string' }, description: { type: 'string' } },
        required: ['command'],
      },
    },
    {
      name: 'Read',
      input_schema: {
        type: 'object',
        properties: { file_path: { type: 'string' } },
        required: ['file_path'],
      },
    },
    { name: 'view_image', input_schema: { type: 'object', properties: { path: { type: 'string' } } } },
  ],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: '<system-reminder>\n - Primary working directory: /tmp/w\n</system-reminder>' },
        { type: 'text', text: TASK },
      ],
    },
  ],
};

/** opencode's bash (description required) and read (filePath), pi-like; Chat Completions format. */
const chatBody = (tools: { name: string; parameters: unknown }[]) => ({
  tools: tools.map((tool) => ({ type: 'function', function: tool })),
  messages: [
    { role: 'system', content: 'Working directory: /srv/p' },
    { role: 'user', content: TASK },
  ],
});

function call(reply: ReturnType<typeof genericAgentReply>): { name: string; args: Record<string, unknown> } {
  const [first] = reply.toolCalls;
  return { name: first?.name ?? '', args: JSON.parse(first?.arguments ?? '{}') as Record<string, unknown> };
}

describe('genericAgentReply', () => {
  it('drives Claude Code: Bash to look, Read with absolute file_path, Bash to write, then answers', () => {
    const tools = offeredTools(claudeBody);
    const step = (n: number) => genericAgentReply({ tools, messages: claudeBody.messages, step: n });
    expect(call(step(0))).toEqual({ name: 'Bash', args: { command: 'pwd && ls' } });
    expect(call(step(1))).toEqual({ name: 'Read', args: { file_path: '/tmp/w/a.txt' } });
    expect(call(step(2))).toEqual({ name: 'Read', args: { file_path: '/tmp/w/b.txt' } });
    expect(call(step(3))).toEqual({ name: 'Bash', args: { command: 'wc -l a.txt b.txt > line-counts.txt' } });
    expect(step(4)).toEqual({
      reasoning: '',
      text: 'Done: I read a.txt, b.txt and wrote their line counts to line-counts.txt.',
      toolCalls: [],
    });
  });

  it('fills required fields and passes an argv array where the schema asks for one', () => {
    const opencode = chatBody([
      {
        name: 'bash',
        parameters: {
          type: 'object',
          properties: {
            command: { type: 'string' },
            description: { type: 'string' },
            timeout: { type: 'number' },
          },
          required: ['command', 'description', 'timeout'],
        },
      },
      {
        name: 'read',
        parameters: { type: 'object', properties: { filePath: { type: 'string' } }, required: ['filePath'] },
      },
    ]);
    const tools = offeredTools(opencode);
    const look = call(genericAgentReply({ tools, messages: opencode.messages, step: 0 }));
    expect(look.args).toEqual({ command: 'pwd && ls', description: expect.any(String), timeout: 60_000 });
    expect(call(genericAgentReply({ tools, messages: opencode.messages, step: 1 })).args).toEqual({
      filePath: '/srv/p/a.txt',
    });
    const codex = chatBody([
      {
        name: 'shell',
        parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } },
      },
    ]);
    const codexTools = offeredTools(codex);
    expect(call(genericAgentReply({ tools: codexTools, messages: codex.messages, step: 1 })).args).toEqual({
      command: ['bash', '-lc', 'cat a.txt'],
    });
  });

  it('takes the task from the user, never from a tool result', () => {
    const tools = offeredTools(claudeBody);
    const messages = [
      ...claudeBody.messages,
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'z.txt\ny.txt' }] },
    ];
    expect(call(genericAgentReply({ tools, messages, step: 1 })).args).toEqual({ file_path: '/tmp/w/a.txt' });
  });

  it('keeps to the task when a notice of left-out messages follows it (pi through a pruning proxy)', () => {
    const tools = offeredTools(
      chatBody([
        { name: 'bash', parameters: {} },
        { name: 'read', parameters: {} },
      ]),
    );
    // The request pi sent at its fourth step, as the proxy pruned it: the look and the first read
    // left out, a marker after the task, the second read kept.
    const messages = [
      ...chatBody([]).messages,
      { role: 'user', content: '[pruned #1: 4 earlier messages (2 turns) left out to fit the window]' },
      {
        role: 'assistant',
        content: 'Reading b.txt.',
        tool_calls: [{ id: 'call_R002', type: 'function', function: { name: 'read', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_R002', content: 'line 0\nline 1' },
    ];
    expect(call(genericAgentReply({ tools, messages, step: 3 }))).toEqual({
      name: 'bash',
      args: { command: 'wc -l a.txt b.txt > line-counts.txt' },
    });
    const truncated = [
      ...messages.slice(0, 2),
      {
        role: 'user',
        content: '[truncated #2: 6 messages removed to fit the window; recall #2 brings them back]',
      },
    ];
    expect(genericAgentReply({ tools, messages: truncated, step: 4 }).text).toBe(
      'Done: I read a.txt, b.txt and wrote their line counts to line-counts.txt.',
    );
  });

  it('recognises shell and read tools by name, not an image viewer', () => {
    expect(recogniseTools(offeredTools(claudeBody))).toEqual({
      shell: expect.objectContaining({ name: 'Bash' }),
      read: expect.objectContaining({ name: 'Read' }),
    });
    expect(recogniseTools(offeredTools(chatBody([{ name: 'view_image', parameters: {} }])))).toEqual({});
  });

  it('answers only requests that offer a client shell tool, unless a script was chosen', () => {
    const declared = (body: { tools: unknown[] }) => offeredTools(body).map((tool) => tool.name);
    const script = codingAgentScript();
    expect(
      answersAsGenericAgent({ script, chosen: false, body: claudeBody, declaredTools: declared(claudeBody) }),
    ).toBe(true);
    expect(
      answersAsGenericAgent({ script, chosen: true, body: claudeBody, declaredTools: declared(claudeBody) }),
    ).toBe(false);
    const coding = chatBody([
      { name: 'read_file', parameters: {} },
      { name: 'search', parameters: {} },
      { name: 'run', parameters: {} },
    ]);
    expect(
      answersAsGenericAgent({ script, chosen: false, body: coding, declaredTools: declared(coding) }),
    ).toBe(false);
  });
});
