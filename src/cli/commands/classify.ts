import { SpillwayError } from '../../core/errors/index.js';
import { classifyOverflow, type OverflowInfo, type OverflowPattern } from '../../core/overflow/index.js';
import type { Command } from '../command.js';
import { EXIT_OK, integerFlag, parseJson, printJson, readInput } from '../io.js';
import { notAnErrorBody } from './not-an-error-body.js';

/**
 * The wire form: snake_case `output_limit`, absent figures left out, a `note` when the input is no
 * error body at all, `pattern` last.
 */
function toWire(info: OverflowInfo, body: unknown, status: number | undefined): Record<string, unknown> {
  const note =
    info.kind === 'none'
      ? notAnErrorBody(typeof body === 'string' ? body : JSON.stringify(body), status)
      : undefined;
  return {
    kind: info.kind,
    ...(info.window !== undefined && { window: info.window }),
    ...(info.input !== undefined && { input: info.input }),
    ...(info.output !== undefined && { output: info.output }),
    ...(info.total !== undefined && { total: info.total }),
    ...(info.outputLimit !== undefined && { output_limit: info.outputLimit }),
    ...(note !== undefined && { note }),
    pattern: info.pattern,
  };
}

function statusFlag(value: string | undefined, flag: string): number | undefined {
  const status = integerFlag(value, flag, { min: 100 });
  if (status !== undefined && status > 599)
    throw new SpillwayError('invalid_argument', `--${flag} must be an HTTP status 100-599, got ${status}`);
  return status;
}

async function loadPatterns(file: string | undefined): Promise<OverflowPattern[]> {
  if (file === undefined) return [];
  const config = parseJson(await readInput(file, 'overflow patterns'), file);
  const rows = Array.isArray(config)
    ? config
    : typeof config === 'object' && config !== null && 'overflow_patterns' in config
      ? (config as { overflow_patterns: unknown }).overflow_patterns
      : undefined;
  if (rows === undefined)
    throw new SpillwayError(
      'invalid_config',
      `${file} holds neither an array of rows nor {"overflow_patterns":[…]}; each row is { name, kind, regex }`,
    );
  // Loaded only when asked for: zod and recheck are not needed to classify with the catalog alone.
  const { compileOverflowPatterns } = await import('../../config/index.js');
  return compileOverflowPatterns(rows);
}

interface BatchRow {
  id?: unknown;
  hasId: boolean;
  body: unknown;
  status?: number;
}

/** Parses every line before classifying any, so a bad line fails the batch with nothing printed. */
function parseBatch(text: string, file: string): BatchRow[] {
  const rows: BatchRow[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    const where = `line ${index + 1} of ${file}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new SpillwayError('invalid_argument', `${where} is not valid JSON: ${(error as Error).message}`);
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row))
      throw new SpillwayError(
        'invalid_argument',
        `${where} is not a JSON object; each line is {"id":…,"body":…,"http_status":N|null}`,
      );
    const { id, body, http_status: status } = row as Record<string, unknown>;
    if (typeof body !== 'string' && (typeof body !== 'object' || body === null))
      throw new SpillwayError('invalid_argument', `${where} has no "body" (a string or a JSON value)`);
    if (
      status !== undefined &&
      status !== null &&
      (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599)
    )
      throw new SpillwayError(
        'invalid_argument',
        `${where}: "http_status" must be an HTTP status 100-599 or null, got ${JSON.stringify(status)}`,
      );
    rows.push({
      id,
      hasId: 'id' in (row as object),
      body,
      status: (status ?? undefined) as number | undefined,
    });
  });
  return rows;
}

export const classifyCommand: Command = {
  summary: 'classify a provider error: context, budget, output_cap or none, with its figures',
  usage: `usage: spillway classify [FILE|-] [--status N] [--patterns FILE.json]
       spillway classify --batch FILE.jsonl|- [--status N] [--patterns FILE.json]

Classifies a provider's rejection (JSON, SSE stream, SDK error text, Python repr; read from standard
input unless FILE is given): context = the prompt alone exceeds the window, budget = the prompt fits
but prompt + max_tokens does not, output_cap = max_tokens exceeds the model's output limit, none = not
an overflow. --status is the HTTP status the body came with (generic wording counts only at 400, 413,
422 or an unknown status). --batch reads one JSON object a line with "body" and "http_status" (and "id",
passed through; --status fills in a missing status) and writes one result a line, in order.
--patterns adds user rows [{"name","kind","regex"}] (or {"overflow_patterns":[…]}), tried first.

output: {"kind":"context|budget|output_cap|none","window":N,"input":N,"output":N,"total":N,"output_limit":N,"pattern":"row-name"}
(figures only when the message states them; --batch puts "id" first; "note" before "pattern" says
why an input is no error body at all: empty, a 2xx, a model's reply, a request)`,
  options: {
    status: { type: 'string' },
    batch: { type: 'string' },
    patterns: { type: 'string' },
  },
  async run({ values, positionals }) {
    const status = statusFlag(values.status as string | undefined, 'status');
    const patterns = await loadPatterns(values.patterns as string | undefined);
    const batch = values.batch as string | undefined;
    if (batch === undefined) {
      const body = await readInput(positionals[0] ?? '-', 'error body');
      printJson(toWire(classifyOverflow({ status, body, patterns }), body, status));
      return EXIT_OK;
    }
    const rows = parseBatch(await readInput(batch, 'batch'), batch === '-' ? 'standard input' : batch);
    const lines = rows.map((row) => {
      const rowStatus = row.status ?? status;
      const wire = toWire(
        classifyOverflow({ status: rowStatus, body: row.body, patterns }),
        row.body,
        rowStatus,
      );
      return JSON.stringify(row.hasId ? { id: row.id, ...wire } : wire);
    });
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
    return EXIT_OK;
  },
};
