/**
 * @module
 * The shape of a discovery probe and of what discovery finds.
 */

/** The servers discovery recognizes. */
export type DiscoveryServer = 'llamacpp' | 'ollama' | 'lmstudio' | 'vllm' | 'tgi' | 'litellm' | 'gemini';

/** What a server reported about a model. */
export interface DiscoveredLimits {
  server: DiscoveryServer;
  /** The endpoint the figures came from (`/props`, `/api/ps`, `/v1/models`…). */
  endpoint: string;
  /**
   * Present when the figures are a gateway's claim about a backend it does not run (LiteLLM's
   * `/model/info`): a claim to verify, ranked below what a server reports about itself.
   */
  claimed?: true;
  /** The backend behind a gateway, as the gateway names it (LiteLLM's `litellm_provider`: `hosted_vllm`). */
  backend?: string;
  /** The window the server enforces. */
  contextLength?: number;
  /** The server's reply cap, when it has one. */
  outputCap?: number;
  /** The window the model was trained on, when the server reports it apart (Ollama, LM Studio). */
  trainedContextLength?: number;
  /** Ollama: no `num_ctx` is set and the model is not loaded, so its default is assumed. */
  defaultAssumed?: true;
  /** The model id as the server reported it. */
  model?: string;
}

/** What each model-independent probe's endpoint answered (its JSON body), by endpoint. */
export type ServerAnswers = ReadonlyMap<string, unknown>;

/** One discovery probe. */
export interface DiscoveryProbe {
  server: DiscoveryServer;
  endpoint: string;
  /**
   * `true` when the request names the model (Ollama's `/api/show`): it is sent per model, and only
   * for a model the server's own list carries. Other probes read one answer for every model.
   */
  perModel?: boolean;
  /** The request to send, relative to the server root; `undefined` to skip (no model to ask about). */
  request(model: string | undefined): { path: string; init?: RequestInit } | undefined;
  /**
   * The limits in a 2xx JSON body, or `undefined` when the body is not this server's. `answers`
   * holds what the model-independent endpoints answered; a result may name the endpoint its
   * figures really came from.
   */
  parse(
    body: unknown,
    model: string | undefined,
    answers?: ServerAnswers,
  ): (Omit<DiscoveredLimits, 'server' | 'endpoint'> & { endpoint?: string }) | undefined;
}
