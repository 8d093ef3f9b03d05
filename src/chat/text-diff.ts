/**
 * @module
 * Line diffs for the approval prompt: what an edit or an overwrite changes, as a unified diff with a
 * few lines of context. The common start and end are matched first; the changed middle gets a
 * longest-common-subsequence diff when it is small, else it shows as removed then added.
 */

/** Lines of context around each change. */
export const DIFF_CONTEXT_LINES = 3;
/** The largest changed middle (lines before × lines after) diffed line by line. */
const LCS_MAX_CELLS = 250_000;

interface DiffOp {
  kind: ' ' | '-' | '+';
  line: string;
}

/** The edit script of the changed middle: a longest common subsequence, by dynamic programming. */
function middleOps(before: readonly string[], after: readonly string[]): DiffOp[] {
  if (before.length * after.length > LCS_MAX_CELLS)
    return [
      ...before.map((line): DiffOp => ({ kind: '-', line })),
      ...after.map((line): DiffOp => ({ kind: '+', line })),
    ];
  const width = after.length + 1;
  const table = new Uint32Array((before.length + 1) * width);
  for (let i = before.length - 1; i >= 0; i--)
    for (let j = after.length - 1; j >= 0; j--)
      table[i * width + j] =
        before[i] === after[j]
          ? (table[(i + 1) * width + j + 1] as number) + 1
          : Math.max(table[(i + 1) * width + j] as number, table[i * width + j + 1] as number);
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < before.length || j < after.length) {
    if (i < before.length && j < after.length && before[i] === after[j]) {
      ops.push({ kind: ' ', line: before[i] as string });
      i++;
      j++;
    } else if (
      i < before.length &&
      (j === after.length || (table[(i + 1) * width + j] as number) >= (table[i * width + j + 1] as number))
    ) {
      // Removed lines first, as diffs show them.
      ops.push({ kind: '-', line: before[i] as string });
      i++;
    } else {
      ops.push({ kind: '+', line: after[j] as string });
      j++;
    }
  }
  return ops;
}

/** Every line of the two texts as kept, removed or added. */
export function diffOps(before: string, after: string): DiffOp[] {
  const a = before.split('\n');
  const b = after.split('\n');
  // Both end with a newline: the empty piece after it is no line of either.
  if (a.length > 1 && b.length > 1 && a.at(-1) === '' && b.at(-1) === '') {
    a.pop();
    b.pop();
  }
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end])
    end++;
  const same = (lines: string[]): DiffOp[] => lines.map((line) => ({ kind: ' ', line }));
  return [
    ...same(a.slice(0, start)),
    ...middleOps(a.slice(start, a.length - end), b.slice(start, b.length - end)),
    ...same(a.slice(a.length - end)),
  ];
}

/**
 * A unified diff of `before` → `after` for `path`, with {@link DIFF_CONTEXT_LINES} lines of context;
 * the empty string when nothing changes.
 *
 * @example
 * unifiedDiff({ path: 'a.ts', before: 'x = 1\n', after: 'x = 2\n' });
 * // '--- a.ts\n+++ a.ts\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n'
 */
export function unifiedDiff({
  path,
  before,
  after,
  context = DIFF_CONTEXT_LINES,
}: {
  path: string;
  before: string;
  after: string;
  context?: number;
}): string {
  const ops = diffOps(before, after);
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  if (changed.length === 0) return '';
  const lines = [`--- ${path}`, `+++ ${path}`];
  // Line numbers (1-based) before and after, at each op.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== '+') oldLine++;
    if (op.kind !== '-') newLine++;
  }
  let index = 0;
  while (index < changed.length) {
    let last = index;
    while (
      last + 1 < changed.length &&
      (changed[last + 1] as number) - (changed[last] as number) <= 2 * context
    )
      last++;
    const from = Math.max(0, (changed[index] as number) - context);
    const to = Math.min(ops.length, (changed[last] as number) + context + 1);
    const hunk = ops.slice(from, to);
    const oldCount = hunk.filter((op) => op.kind !== '+').length;
    const newCount = hunk.filter((op) => op.kind !== '-').length;
    lines.push(`@@ -${oldAt[from]},${oldCount} +${newAt[from]},${newCount} @@`);
    for (const op of hunk) lines.push(`${op.kind}${op.line}`);
    index = last + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** The preview of a file about to be created: its lines marked as added. */
export function newFilePreview({ path, content }: { path: string; content: string }): string {
  const lines = content.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return [`+++ ${path} (new file)`, ...lines.map((line) => `+${line}`)].join('\n');
}
