import { describeSources, type SchemaSource } from '../schemas/index.js';

/** What to tell the caller when even the smallest request the manager can build does not fit. */
export function truncatedMessage({
  estimate,
  budget,
  window,
  reserve,
  schemaTokens,
  messages,
  sources,
}: {
  estimate: number;
  budget: number;
  window: number;
  reserve: number;
  schemaTokens: number;
  messages: number;
  sources: readonly SchemaSource[];
}): string {
  const base = `the smallest request Spillway can build (the head and the newest turn, ${messages} messages) needs about ${estimate} prompt tokens, but the ${window}-token window leaves ${budget} after reserving ${reserve} for the reply`;
  if (budget <= 0) return `${base}; lower max_tokens or the reserve`;
  if (schemaTokens > budget / 2)
    return `${base}; tool schemas alone take about ${schemaTokens} (${describeSources(sources)}): disable servers, filter their tools or load them on demand, or send shorter schemas`;
  return `${base}; shorten the system prompt or the first user message, or use a model with a larger window`;
}
