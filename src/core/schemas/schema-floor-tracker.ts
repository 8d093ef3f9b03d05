/**
 * @module
 * The schema floor across the sends of one run: the tokenizer ratio learned from usage, per-tool
 * estimates computed once, and notices raised once per escalation level.
 */
import type { TokenCounter } from '../tokens/index.js';
import type { Message, ToolDefinition } from '../transcript/index.js';
import { measureSchemaFloor, type SchemaFloor, toolEstimate } from './measure-schema-floor.js';
import {
  SCHEMA_FLOOR_LEVELS,
  type SchemaFloorLevel,
  type SchemaFloorNotice,
  schemaFloorNotice,
} from './schema-floor-notice.js';
import { MIN_TOKENIZER_RATIO, observeTokenizerRatio } from './tokenizer-ratio.js';

/**
 * Each tool definition's raw estimate, by counter: a tracker per request (a proxy's) meets the same
 * definitions (the converters hand out the objects they read before) with the same shared counter.
 */
const TOOL_ESTIMATES = new WeakMap<TokenCounter, WeakMap<ToolDefinition, number>>();

/** What {@link SchemaFloorTracker.check} found for one request. */
export interface SchemaFloorCheck {
  floor: SchemaFloor;
  /** A notice when the floor reached a level not yet announced in this run. */
  notice?: SchemaFloorNotice;
}

/**
 * Tracks the floor of one run's requests. The notice for a level is raised once; a higher level
 * raises its own; {@link resetNotices} (a new run) lets them be raised again.
 *
 * @example
 * const tracker = new SchemaFloorTracker();
 * const { floor, notice } = tracker.check({ tools, messages, counter, budget, window });
 * if (notice) show(notice.message);
 * tracker.observe({ reported: usage.prompt_tokens, raw, hasImages: false });
 */
export class SchemaFloorTracker {
  #ratio = MIN_TOKENIZER_RATIO;
  #announced: SchemaFloorLevel = 'none';

  /** The tokenizer ratio in force (1–4). */
  get ratio(): number {
    return this.#ratio;
  }

  /** Folds a usage report into the tokenizer ratio (requests with images do not calibrate). */
  observe(report: { reported: number; raw: number; hasImages: boolean }): void {
    this.#ratio = observeTokenizerRatio({ ratio: this.#ratio, ...report });
  }

  /** Measures a request's floor and returns a notice when it reached a new level. */
  check({
    tools,
    messages,
    counter,
    messageEstimate,
    budget,
    window,
  }: {
    tools: readonly ToolDefinition[];
    messages: readonly Message[];
    counter: TokenCounter;
    messageEstimate?: (message: Message) => number;
    budget: number;
    window: number;
  }): SchemaFloorCheck {
    let perTool = TOOL_ESTIMATES.get(counter);
    if (!perTool) {
      perTool = new WeakMap();
      TOOL_ESTIMATES.set(counter, perTool);
    }
    const cache = perTool;
    const floor = measureSchemaFloor({
      tools,
      messages,
      counter,
      messageEstimate,
      toolEstimate: (tool) => {
        let raw = cache.get(tool);
        if (raw === undefined) {
          raw = toolEstimate(tool, counter);
          cache.set(tool, raw);
        }
        return raw;
      },
      ratio: this.#ratio,
    });
    const notice = schemaFloorNotice({ floor, budget, window });
    if (!notice || SCHEMA_FLOOR_LEVELS.indexOf(notice.level) <= SCHEMA_FLOOR_LEVELS.indexOf(this.#announced))
      return { floor };
    this.#announced = notice.level;
    return { floor, notice };
  }

  /** Lets every level be announced again (a new run). The ratio stays: it is about the backend. */
  resetNotices(): void {
    this.#announced = 'none';
  }
}
