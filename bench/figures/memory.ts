/** `spillway serve`'s memory under many conversations and model names (`npm run bench -- memory`, memory.json). */
import { count, fixed } from './format.js';

export interface MemoryResult {
  conversations: number;
  models: number;
  ok: number;
  requests?: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  rssGrowthMb: number;
  youngGrowthMb: number;
  keptGrowthMb: number;
  heapGrowthMb: number;
  limitMb: number;
  seconds: number;
  readings?: Array<{ conversations: number; rssMb: number; heapUsedMb: number }>;
  lastStretch?: { rssGrowthMb: number; anonGrowthMb: number; heapGrowthMb: number };
  plateauLimitMb?: number;
  runs?: Array<{ keptGrowthMb: number; lastRssGrowthMb?: number; lastHeapGrowthMb?: number }>;
}

/** One paragraph: the load, the growth it left, and the bound it is held to; then the plateau. */
export function memorySummary(result: MemoryResult): string {
  return `${firstStretch(result)}${plateau(result)}`;
}

function firstStretch(result: MemoryResult): string {
  const verdict = result.keptGrowthMb < result.limitMb ? 'under' : 'over';
  return `${count(result.conversations)} conversations over ${count(result.models)} model names through \`spillway serve --store memory\` (in ${fixed(result.seconds, 0)} s; ${answered(result)})${runsNote(result)}: resident memory after a compacting garbage collection went from ${fixed(result.rssBeforeMb, 1)} MB after the warm-up to ${fixed(result.rssAfterMb, 1)} MB once the load had ended, a growth of ${fixed(result.rssGrowthMb, 1)} MB. Of it, ${fixed(result.youngGrowthMb, 1)} MB is the young generation's space, which V8 enlarges under load when much survives (up to two 16 MB semi-spaces in Node 20) and mostly keeps, empty, whether or not the warm-up already made it grow; the rest, ${fixed(result.keptGrowthMb, 1)} MB, is what the load left (the live heap grew ${fixed(result.heapGrowthMb, 1)} MB): ${verdict} the ${result.limitMb} MB the store's caps and the caches' sizes are meant to hold it to.`;
}

/** How many requests were answered 200, of how many, over every stretch of the reported run. */
function answered(result: MemoryResult): string {
  const requests = result.requests ?? result.conversations;
  return requests === result.conversations
    ? `${count(result.ok)} answered 200`
    : `${count(result.ok)} of the ${count(requests)} requests of all stretches answered 200`;
}

/** Which runs the figures are the median of, and each run's growth beside them. */
function runsNote(result: MemoryResult): string {
  if (result.runs === undefined || result.runs.length < 2) return '';
  const kept = result.runs.map((run) => `${fixed(run.keptGrowthMb, 1)}`).join(', ');
  return `, the median of ${result.runs.length} runs each in a fresh process (what the load left: ${kept} MB)`;
}

/** What the stretches after the first added, once the store's caps and the caches were full. */
function plateau(result: MemoryResult): string {
  const { readings, lastStretch, plateauLimitMb } = result;
  if (
    readings === undefined ||
    lastStretch === undefined ||
    plateauLimitMb === undefined ||
    readings.length < 3
  )
    return '';
  const steps = readings
    .slice(1)
    .map(
      (reading) =>
        `${fixed(reading.rssMb, 1)} MB (live heap ${fixed(reading.heapUsedMb, 1)} MB) after ${count(reading.conversations)}`,
    )
    .join(', ');
  const held = lastStretch.rssGrowthMb <= plateauLimitMb ? 'within' : 'over';
  const others = (result.runs ?? [])
    .map((run) => run.lastRssGrowthMb)
    .filter((value) => value !== undefined)
    .map((value) => fixed(value, 1))
    .join(', ');
  return `\n\nThe load went on with ${count(readings.length - 2)} more stretch${readings.length > 3 ? 'es' : ''} of ${count(result.conversations)} conversations over new model names. Resident memory: ${steps} conversations. Over the last ${count(result.conversations)} the live heap grew ${fixed(lastStretch.heapGrowthMb, 1)} MB, the process's own memory (\`RssAnon\`) ${fixed(lastStretch.anonGrowthMb, 1)} MB and resident memory ${fixed(lastStretch.rssGrowthMb, 1)} MB${others === '' ? '' : ` (each run: ${others} MB)`}, ${held} the ${plateauLimitMb} MB allowed for pages the allocators keep or give back: ${held === 'within' ? 'the caps hold' : 'memory still grows once the caps are full'}.`;
}
