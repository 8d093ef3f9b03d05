import { describe, expect, it } from 'vitest';
import { PromptAssembler } from './prompt-assembler.js';

describe('PromptAssembler', () => {
  it('sends a line as it is', () => {
    expect(new PromptAssembler().line('hello')).toEqual({ kind: 'prompt', text: 'hello' });
  });

  it('continues a line that ends in a backslash', () => {
    const assembler = new PromptAssembler();
    expect(assembler.line('first \\')).toEqual({ kind: 'continue' });
    expect(assembler.continuing).toBe(true);
    expect(assembler.line('second')).toEqual({ kind: 'prompt', text: 'first \nsecond' });
    expect(assembler.continuing).toBe(false);
  });

  it('keeps the lines of a paste in one message, sent by the Enter after it', () => {
    const assembler = new PromptAssembler();
    assembler.pasteStart();
    expect(assembler.line('alpha')).toEqual({ kind: 'continue' });
    expect(assembler.line('beta \\')).toEqual({ kind: 'continue' });
    assembler.pasteEnd();
    expect(assembler.line('gamma')).toEqual({ kind: 'prompt', text: 'alpha\nbeta \\\ngamma' });
  });

  it('drops a message being continued', () => {
    const assembler = new PromptAssembler();
    assembler.line('half \\');
    assembler.discard();
    expect(assembler.line('new')).toEqual({ kind: 'prompt', text: 'new' });
  });
});
