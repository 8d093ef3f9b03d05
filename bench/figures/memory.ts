/** `spillway serve`'s memory under many conversations and model names (`npm run bench -- memory`, memory.json). */
import { count, fixed } from './format.js';

export interface MemoryResult {
  conversations: number;
  models: number;
  ok: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssGrowthMb: number;
  heapGrowthMb: number;
  limitMb: number;
  seconds: number;
}

/** One paragraph: the load, the growth it left, and the bound it is held to. */
export function memorySummary(result: MemoryResult): string {
  const verdict = result.rssGrowthMb < result.limitMb ? 'under' : 'over';
  return `${count(result.conversations)} conversations over ${count(result.models)} model names through \`spillway serve --store memory\` (${count(result.ok)} answered 200, in ${fixed(result.seconds, 0)} s): resident memory after a compacting garbage collection went from ${fixed(result.rssBeforeMb, 1)} MB after the warm-up to ${fixed(result.rssAfterMb, 1)} MB once the load had ended, a growth of ${fixed(result.rssGrowthMb, 1)} MB (the live heap grew ${fixed(result.heapGrowthMb, 1)} MB): ${verdict} the ${result.limitMb} MB the store's caps and the caches' sizes are meant to hold it to.`;
}
