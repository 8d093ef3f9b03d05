/** `spillway serve`'s memory under many conversations and model names (`npm run bench -- memory`, memory.json). */
import { count, fixed } from './format.js';

export interface MemoryResult {
  conversations: number;
  models: number;
  ok: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssGrowthMb: number;
  youngGrowthMb: number;
  keptGrowthMb: number;
  heapGrowthMb: number;
  limitMb: number;
  seconds: number;
  runs?: Array<{ keptGrowthMb: number }>;
}

/** One paragraph: the load, the growth it left, and the bound it is held to. */
export function memorySummary(result: MemoryResult): string {
  const verdict = result.keptGrowthMb < result.limitMb ? 'under' : 'over';
  return `${count(result.conversations)} conversations over ${count(result.models)} model names through \`spillway serve --store memory\` (${count(result.ok)} answered 200, in ${fixed(result.seconds, 0)} s)${runsNote(result)}: resident memory after a compacting garbage collection went from ${fixed(result.rssBeforeMb, 1)} MB after the warm-up to ${fixed(result.rssAfterMb, 1)} MB once the load had ended, a growth of ${fixed(result.rssGrowthMb, 1)} MB. Of it, ${fixed(result.youngGrowthMb, 1)} MB is the young generation's space, which V8 enlarges under load when much survives (up to two 16 MB semi-spaces in Node 20) and keeps, empty, whether or not the warm-up already made it grow; the rest, ${fixed(result.keptGrowthMb, 1)} MB, is what the load left (the live heap grew ${fixed(result.heapGrowthMb, 1)} MB): ${verdict} the ${result.limitMb} MB the store's caps and the caches' sizes are meant to hold it to.`;
}

/** Which runs the figures are the median of, and each run's growth beside them. */
function runsNote(result: MemoryResult): string {
  if (result.runs === undefined || result.runs.length < 2) return '';
  const kept = result.runs.map((run) => `${fixed(run.keptGrowthMb, 1)}`).join(', ');
  return `, the median of ${result.runs.length} runs each in a fresh process (what the load left: ${kept} MB)`;
}
