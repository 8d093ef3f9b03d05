import { windowRoomText } from '../budget/index.js';
import { describeSources, type SchemaSource } from '../schemas/index.js';
import type { Message } from '../transcript/index.js';

/** Prompt tokens of each part of the smallest request Spillway can build, in the count's units. */
export interface RequestParts {
  /** Tool schemas and the request's own overhead (the few tokens every request costs). */
  schemas: number;
  /** System messages. */
  system: number;
  /** The first user message (the task). */
  task: number;
  /** The newest turn's tool results, as small as they could be made. */
  results: number;
  /** The rest of the newest turn: the assistant's calls and any user text in it. */
  turn: number;
}

/** The parts of a request, each from the count of its messages (`tokensOf` gives calibrated tokens). */
export function requestParts({
  messages,
  headEnd,
  schemas,
  tokensOf,
}: {
  messages: readonly Message[];
  /** Where the head (system messages and the first user message) ends. */
  headEnd: number;
  schemas: number;
  tokensOf: (message: Message) => number;
}): RequestParts {
  const parts: RequestParts = { schemas, system: 0, task: 0, results: 0, turn: 0 };
  messages.forEach((message, index) => {
    const tokens = tokensOf(message);
    if (message.role === 'system') parts.system += tokens;
    else if (index < headEnd) parts.task += tokens;
    else if (message.role === 'tool') parts.results += tokens;
    else parts.turn += tokens;
  });
  return parts;
}

/** What each part is called, and what to do when it is the one too large. */
const CULPRITS: Record<keyof RequestParts, { name: string; fix: (sources: string) => string }> = {
  schemas: {
    name: 'tool schemas and request overhead',
    fix: (sources) =>
      `disable servers, filter their tools or load them on demand, or send shorter schemas${sources}`,
  },
  system: { name: 'the system prompt', fix: () => 'shorten the system prompt' },
  task: { name: 'the first user message', fix: () => 'shorten the first user message' },
  results: {
    name: "the newest turn's tool results",
    fix: () => 'have the tool return less (a range of lines, a filtered listing)',
  },
  turn: {
    name: 'the newest turn itself (its tool calls and text)',
    fix: () => 'send a shorter message or smaller tool-call arguments',
  },
};

/** What to tell the caller when even the smallest request the manager can build does not fit. */
export function truncatedMessage({
  estimate,
  budget,
  window,
  reserve,
  messages,
  parts,
  sources,
}: {
  estimate: number;
  budget: number;
  window: number;
  reserve: number;
  messages: number;
  parts: RequestParts;
  sources: readonly SchemaSource[];
}): string {
  const base = `the smallest request Spillway can build (the head and the newest turn, ${messages} ${messages === 1 ? 'message' : 'messages'}) needs about ${estimate} prompt tokens, but ${windowRoomText({ window, reserve, budget })}`;
  if (budget <= 0) return `${base}; lower the reserve or use a model with a larger window`;
  const largest = (Object.keys(parts) as Array<keyof RequestParts>).reduce((best, key) =>
    parts[key] > parts[best] ? key : best,
  );
  const culprit = CULPRITS[largest];
  const listed = (Object.keys(parts) as Array<keyof RequestParts>)
    .filter((key) => parts[key] > 0)
    .map((key) => `${CULPRITS[key].name} ${parts[key]}`)
    .join(', ');
  const from = largest === 'schemas' && sources.length > 0 ? ` (${describeSources(sources)})` : '';
  return `${base}. The largest part is ${culprit.name}, about ${parts[largest]} tokens (${listed}): ${culprit.fix(from)}, or use a model with a larger window`;
}
