import { SpillwayError } from '../core/index.js';
import type { LoopTool } from '../loop/index.js';
import type { ConfirmAction } from './confirm-action.js';
import { inspectWriteTarget, writeRegularFile } from './regular-file.js';
import { newFilePreview, unifiedDiff } from './text-diff.js';
import { argumentsOf } from './tool-arguments.js';
import { describeWorkspacePath, resolveWorkspacePath, type WorkspacePath } from './workspace-path.js';

/**
 * Asks the user before a file is written, showing the real path and a preview (the new file's
 * lines, or the diff against what it holds); throws what the model is told when they refuse.
 */
export async function confirmWrite({
  confirm,
  tool,
  target,
  before,
  after,
  detail,
  signal,
}: {
  confirm: ConfirmAction;
  tool: string;
  target: WorkspacePath;
  before: string | undefined;
  after: string;
  detail: string;
  signal?: AbortSignal;
}): Promise<void> {
  const preview =
    before === undefined
      ? newFilePreview({ path: target.shown, content: after })
      : unifiedDiff({ path: target.shown, before, after });
  const allowed = await confirm({
    tool,
    summary: `${tool === 'edit_file' ? 'edit' : 'write'} ${describeWorkspacePath(target)} (${detail})`,
    preview,
    ...(signal ? { signal } : {}),
  });
  if (!allowed)
    throw new SpillwayError(
      'aborted',
      `the user did not allow ${tool === 'edit_file' ? 'editing' : 'writing'} ${target.shown}; ask them or do something else`,
      { data: { reason: 'refused', path: target.shown } },
    );
}

/** The `write_file` tool: a whole file written, after the user allows it. */
export function createWriteFileTool({ root, confirm }: { root: string; confirm: ConfirmAction }): LoopTool {
  return {
    name: 'write_file',
    description:
      'Write a whole text file of the project (created or replaced). For a change to part of a file use edit_file. The user is asked first.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Path relative to the project directory.' },
        content: { type: 'string', description: 'The whole new content of the file.' },
      },
      required: ['path', 'content'],
    },
    source: 'builtin',
    async execute(args, { signal }) {
      const { path, content } = argumentsOf(args);
      if (typeof content !== 'string')
        throw new SpillwayError('invalid_argument', 'give "content" as a string');
      const target = await resolveWorkspacePath({ root, path });
      const inspected = await inspectWriteTarget({ root, shown: target.shown });
      const { before } = inspected;
      const bytes = Buffer.byteLength(content);
      await confirmWrite({
        confirm,
        tool: 'write_file',
        target,
        before,
        after: content,
        detail: `${bytes} bytes${before === undefined ? ', new file' : ''}`,
        ...(signal ? { signal } : {}),
      });
      // Written where it was approved: the same directory, the same file, or still a new name.
      await writeRegularFile({ root, shown: target.shown, content, target: inspected });
      return `wrote ${target.shown} (${bytes} bytes)`;
    },
  };
}
