/** The coding-agent tools the emulator's default script calls, answering with seeded realistic output. */
import { fakeToolResult } from '../../src/emulator/index.js';
import type { LoopTool } from '../../src/loop/index.js';

export function codingTools({ seed = 0, size }: { seed?: number; size?: number } = {}): LoopTool[] {
  const tool = (name: string, description: string, properties: Record<string, unknown>): LoopTool => ({
    name,
    description,
    parameters: { type: 'object', properties },
    execute: (args) => fakeToolResult({ name, args, seed, ...(size !== undefined ? { size } : {}) }),
  });
  return [
    tool('read_file', 'Read a file of the repository.', { path: { type: 'string' } }),
    tool('search', 'Search the repository for a pattern.', {
      query: { type: 'string' },
      path: { type: 'string' },
    }),
    tool('run', 'Run a shell command.', { command: { type: 'string' } }),
  ];
}
