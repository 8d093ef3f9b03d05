import { computeBudget } from '../core/index.js';

/**
 * The reply reserve to fit prompts with. A configured reserve wins. Otherwise the budget reserves the
 * output cap, which is right for a cap well below the window but leaves no room for the prompt when a
 * gateway advertises a cap as large as the window (LiteLLM's `/model/info` states 96,000 input and
 * 96,000 output tokens for one deployment): past a quarter of the window, the default share is
 * reserved instead (`max(1000, 2%)`), and the clamp still gives each reply all the room the prompt
 * leaves, up to the cap.
 *
 * @example
 * chooseReserve({ contextLength: 9_600, outputCap: 9_600 }); // 1000
 * chooseReserve({ contextLength: 128_000, outputCap: 16_384 }); // undefined: reserve the cap
 */
export function chooseReserve({
  contextLength,
  outputCap,
  reserve,
}: {
  contextLength: number;
  outputCap?: number;
  reserve?: number;
}): number | undefined {
  if (reserve !== undefined) return reserve;
  if (outputCap === undefined || outputCap <= contextLength / 4) return undefined;
  return computeBudget({ contextLength }).reserve;
}
