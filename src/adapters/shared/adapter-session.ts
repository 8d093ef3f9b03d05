/**
 * @module
 * What every adapter keeps across calls: one conversation driver per model (limits from the catalog,
 * overridable), every send through it, and the events tagged with the model.
 */
import {
  type ChatRequest,
  ConversationDriver,
  type DriverSendResult,
  type SendSurface,
  type Summarizer,
  sendPolicy,
  type Transport,
  type UsageReport,
} from '../../core/index.js';
import { resolveLimits } from '../../models/index.js';
import type { SpillwayAdapterOptions } from './adapter-options.js';

/** The adapter a session serves. */
export type AdapterSurface = Extract<SendSurface, 'ai-sdk' | 'openai' | 'anthropic'>;

/** Inputs of {@link AdapterSession.send}. */
export interface AdapterSendOptions<Response> {
  /** The request as the caller made it. */
  request: ChatRequest;
  /** The catalog provider when the adapter options name none. */
  provider?: string;
  transport: Transport<Response>;
  /** Writes compaction summaries for the recovery chain (the wrapped model or client itself). */
  summarize?: Summarizer;
  signal?: AbortSignal;
}

/**
 * The state an adapter keeps across calls: a {@link ConversationDriver} per model, made from the
 * catalog's limits and the options. The caller already has each reply when the driver returns it,
 * so the retry classes that would resend (an interrupted stream, invalid tool arguments, a cut-off
 * reply, a silently truncated prompt) are off; overflows are recovered once. A call whose system prompt and first user message
 * differ from the last one's starts a new run in the driver, so consecutive runs do not share
 * calibration.
 */
export class AdapterSession {
  readonly #options: SpillwayAdapterOptions;
  readonly #surface: AdapterSurface;
  readonly #drivers = new Map<string, Promise<ConversationDriver>>();

  constructor(options: SpillwayAdapterOptions = {}, surface: AdapterSurface = 'openai') {
    this.#options = options;
    this.#surface = surface;
  }

  /**
   * Sends a call through its model's driver. Rejects with the `ContextTruncatedError` when nothing
   * can fit, and with the transport's own error (the SDK's) for anything else that failed.
   */
  async send<Response>(
    options: AdapterSendOptions<Response>,
  ): Promise<{ driver: ConversationDriver; response: Response }> {
    const { request, provider, transport, summarize, signal } = options;
    const driver = await this.#driverFor(request.model ?? '', this.#options.provider ?? provider);
    const result: DriverSendResult<Response> = await driver.send({
      request,
      transport,
      ...(summarize ? { summarize } : {}),
      ...(signal ? { signal } : {}),
    });
    if (!result.ok) throw result.error ?? new Error(result.message);
    return { driver, response: result.response };
  }

  /** Feeds the usage a reply reported, once the caller has read it (a stream's last chunk). */
  observe(driver: ConversationDriver, usage: UsageReport): void {
    driver.observe(usage);
  }

  #driverFor(model: string, provider: string | undefined): Promise<ConversationDriver> {
    const key = `${provider ?? ''}\u0000${model}`;
    let driver = this.#drivers.get(key);
    if (!driver) {
      driver = this.#createDriver(model, provider);
      // A failed lookup is not kept: the next call tries again.
      driver.catch(() => this.#drivers.delete(key));
      this.#drivers.set(key, driver);
    }
    return driver;
  }

  async #createDriver(model: string, provider: string | undefined): Promise<ConversationDriver> {
    const {
      contextLength,
      outputCap,
      reserve,
      safetyRatio,
      clamp,
      counter,
      summaryMaxTokens,
      overflowPatterns,
      onEvent,
    } = this.#options;
    const limits =
      model === ''
        ? { contextLength, outputCap }
        : // The caller's figures replace the catalog's: the adapter's options are the user's word.
          await resolveLimits({ model, provider, hard: { contextLength, outputCap } });
    // The model's tokenizer as its id suggests, where its package is installed: trusted only once
    // its counts agree with the provider's reports, as on every surface.
    const { exactCounterFor } = await import('../../tokenizers/index.js');
    const tokenizer = model === '' ? undefined : await exactCounterFor(model);
    const policy = sendPolicy({
      surface: this.#surface,
      ...(model === '' ? {} : { model }),
      limits,
      user: { reserve, safetyRatio, clamp, counter, summaryMaxTokens, overflowPatterns },
      counting: tokenizer?.exact ? { tokenizer } : {},
    });
    const driver = new ConversationDriver(policy.driver);
    if (onEvent) driver.subscribe((event) => onEvent({ ...event, model }));
    return driver;
  }
}
