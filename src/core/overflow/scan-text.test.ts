import { describe, expect, it } from 'vitest';
import { STATED_STATUS } from './classify-overflow.js';
import {
  BYTE_ESCAPE_RUN,
  capScanText,
  ERROR_WORD,
  ESCAPE_RUN,
  errorEventsOf,
  joinWrappedWords,
  MAX_SCAN_CHARS,
  normalizeScanText,
  SPACE_RUN,
  SSE_DATA_LINE,
  WRAPPED_WORD,
} from './scan-text.js';

// recheck is a development tool here: loaded only by the tests that use it.
const { checkSync } = await import('recheck');

describe('the scan text', () => {
  it('decodes Python bytes escapes of UTF-8 and drops terminal box drawing', () => {
    expect(normalizeScanText(String.raw`your organization\xe2\x80\x99s rate`)).toBe(
      "your organization's rate",
    );
    expect(normalizeScanText(String.raw`\xff\xfe kept`)).toBe(String.raw`\xff\xfe kept`);
    expect(normalizeScanText('The maximum tokens    █     █▀▀▀▄ █   █\n   you requested')).toBe(
      'The maximum tokens you requested',
    );
  });

  it('keeps the head and the tail of a long text', () => {
    const text = `HEAD${'m'.repeat(200_000)}TAIL`;
    const capped = capScanText(text);
    expect(capped.length).toBeLessThanOrEqual(MAX_SCAN_CHARS);
    expect(capped.startsWith('HEAD')).toBe(true);
    expect(capped.endsWith('TAIL')).toBe(true);
    expect(capScanText('short')).toBe('short');
  });

  it('undoes JSON, double-encoded JSON and Python escapes', () => {
    expect(normalizeScanText(String.raw`{\"message\":\"This model\u0027s limit\"}`)).toBe(
      `{"message":"This model's limit"}`,
    );
    expect(normalizeScanText(String.raw`a\\\"b\nc\td`)).toBe('a"b c d');
    expect(normalizeScanText("This endpoint\\'s \n  maximum")).toBe("This endpoint's maximum");
    expect(normalizeScanText(String.raw`C:\dir \\ \u12`)).toBe(String.raw`C:\dir \\ \u12`);
  });

  it('reduces an SSE stream to its error events', () => {
    const stream = [
      'event: response.output_text.delta',
      'data: {"delta":"context windows are large"}',
      '',
      'event: response.failed',
      'data: {"response":{"status":"failed"}}',
      '',
      ': keep-alive',
      'data: {"choices":[],"error":{"message":"boom"}}',
    ].join('\n');
    expect(errorEventsOf(stream)).toBe(
      ' {"response":{"status":"failed"}}\n {"choices":[],"error":{"message":"boom"}}',
    );
    expect(errorEventsOf('not a stream')).toBe('not a stream');
  });

  it('joins hard-wrapped words only where a newline splits a word', () => {
    expect(joinWrappedWords('lengt\n   h is 4096')).toBe('length is 4096');
    expect(joinWrappedWords('tokens.\nHowever')).toBeUndefined();
  });

  it.each([
    ['ESCAPE_RUN', ESCAPE_RUN],
    ['SSE_DATA_LINE', SSE_DATA_LINE],
    ['ERROR_WORD', ERROR_WORD],
    ['WRAPPED_WORD', WRAPPED_WORD],
    ['STATED_STATUS', STATED_STATUS],
    ['SPACE_RUN', SPACE_RUN],
    ['BYTE_ESCAPE_RUN', BYTE_ESCAPE_RUN],
  ])('%s cannot backtrack catastrophically (recheck)', (_name, pattern) => {
    expect(checkSync(pattern.source, pattern.flags, { timeout: 20_000 }).status).toBe('safe');
  });
});
