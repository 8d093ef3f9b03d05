import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../core/index.js';
import { readPipedPrompt } from './read-piped-prompt.js';

const piped = (text: string) => Object.assign(Readable.from([Buffer.from(text)]), { isTTY: false });

describe('readPipedPrompt', () => {
  it('takes -p first, then piped text, and nothing from a terminal', async () => {
    expect(await readPipedPrompt({ prompt: 'Fix it', stdin: piped('ignored') })).toBe('Fix it');
    expect(await readPipedPrompt({ stdin: piped('Summarize README.md\n') })).toBe('Summarize README.md');
    expect(
      await readPipedPrompt({ stdin: Object.assign(Readable.from([]), { isTTY: true }) }),
    ).toBeUndefined();
  });

  it('refuses an empty prompt from either', async () => {
    for (const attempt of [readPipedPrompt({ prompt: '' }), readPipedPrompt({ stdin: piped(' \n') })]) {
      const error = await attempt.catch((caught: unknown) => caught);
      expect(SpillwayError.isInstance(error) && error.data.reason).toBe('empty_prompt');
    }
  });
});
