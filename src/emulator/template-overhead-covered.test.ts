import { describe, expect, it } from 'vitest';
import {
  MESSAGE_OVERHEAD,
  REQUEST_OVERHEAD,
  TOOL_BLOCK_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  TOOL_DEFINITION_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
} from '../core/index.js';
import { measureTemplateOverhead } from './template-overhead.js';

describe("the estimator's template overheads", () => {
  it.each(['o200k', 'cl100k'] as const)('cover what the emulators’ template adds with %s', (tokenizer) => {
    const measured = measureTemplateOverhead({ tokenizer });
    expect(MESSAGE_OVERHEAD).toBeGreaterThanOrEqual(measured.message.max);
    expect(TOOL_RESULT_OVERHEAD).toBeGreaterThanOrEqual(measured.toolResult.max);
    expect(TOOL_CALL_OVERHEAD).toBeGreaterThanOrEqual(measured.toolCall.max);
    expect(TOOL_DEFINITION_OVERHEAD).toBeGreaterThanOrEqual(measured.toolSchema.max);
    expect(TOOL_BLOCK_OVERHEAD).toBeGreaterThanOrEqual(measured.request.toolsBlock);
    expect(REQUEST_OVERHEAD).toBeGreaterThanOrEqual(measured.request.base + measured.request.defaultSystem);
  });
});
