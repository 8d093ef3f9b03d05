import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { gateResize } from './gated-output.js';
import { spinnerLine } from './spinner.js';

describe('the spinner line', () => {
  it('shows the elapsed time, what is going on and the tokens', () => {
    expect(
      spinnerLine({
        frame: 1,
        elapsedMs: 6_240,
        state: { activity: 'thinking', sent: 12_400, received: 230 },
        columns: 120,
      }),
    ).toBe('⠙ 6.2s · thinking · ≈12k tokens sent · ≈230 received');
    expect(
      spinnerLine({
        frame: 0,
        elapsedMs: 100,
        state: { activity: 'waiting for the reply', sent: 900, sentCounted: true },
        columns: 120,
      }),
    ).toBe('⠋ 0.1s · waiting for the reply · 900 tokens sent');
  });

  it('stays shorter than the terminal is wide', () => {
    for (const columns of [10, 30, 60]) {
      const line = spinnerLine({
        frame: 0,
        elapsedMs: 1,
        state: { activity: 'waiting for the reply', sent: 1 },
        columns,
      });
      expect(line.length).toBeLessThan(columns);
    }
  });
});

describe('gateResize', () => {
  it('passes writes through, and resizes only while not held', () => {
    const written: string[] = [];
    const output = Object.assign(new EventEmitter(), {
      isTTY: true,
      columns: 60,
      write: (text: string) => written.push(text) > 0,
    }) as unknown as NodeJS.WritableStream & { columns: number };
    const gated = gateResize(output);
    let resizes = 0;
    gated.stream.on('resize', () => resizes++);
    gated.stream.write('› ');
    output.emit('resize');
    gated.hold(true);
    output.emit('resize');
    gated.hold(false);
    output.emit('resize');
    gated.close();
    output.emit('resize');
    expect({ written, resizes, columns: gated.stream.columns }).toEqual({
      written: ['› '],
      resizes: 2,
      columns: 60,
    });
  });
});
