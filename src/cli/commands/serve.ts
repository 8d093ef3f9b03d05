import { SpillwayError } from '../../core/index.js';
import {
  createMemoryProxyStore,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_PROXY_PORT,
  DEFAULT_UPSTREAM_TIMEOUTS,
  openProxyStore,
  type ProxyStore,
  startProxy,
} from '../../proxy/index.js';
import { loadProxyConfig } from '../../proxy/proxy-config.js';
import type { Command } from '../command.js';
import { allocateYoung, DEFAULT_HEAP_RESERVE_MB, growHeapSteadily, reserveHeap } from '../heap-reserve.js';
import { choiceFlag, EXIT_OK, integerFlag, untilStopped } from '../io.js';
import { loadOrCreateSharedSecret } from '../wrap/shared-secret.js';

/**
 * The store `--store` names; without the flag, the SQLite file, or memory when better-sqlite3 (an
 * optional peer) is not installed: `npx spillway serve` works from a fresh install, and says in one
 * info line that learned limits and conversation state then last only as long as the process.
 */
function openStore(spec: string | undefined): ProxyStore {
  if (spec !== undefined) return openProxyStore(spec);
  try {
    return openProxyStore('sqlite');
  } catch (error) {
    if (!SpillwayError.isInstance(error) || error.code !== 'missing_dependency') throw error;
    // Not a warning: the user asked for no store, and the one they got works; one line says which.
    const entry = {
      level: 'info',
      event: 'store_fallback',
      store: 'memory',
      package: error.data.package,
      message: `learned limits and conversation state are kept in memory, for this process (${String(error.data.package)} is not installed; install it or pass --store to keep them)`,
    };
    process.stderr.write(`${JSON.stringify(entry)}\n`);
    return createMemoryProxyStore();
  }
}

/** The largest `--heap-reserve` taken, in MB: a larger one is more likely a slip than a choice. */
const MAX_HEAP_RESERVE_MB = 1_024;

export const serveCommand: Command = {
  summary: 'run the proxy: an OpenAI-compatible endpoint that fits every request before it goes upstream',
  usage: `usage: spillway serve --upstream URL [--port ${DEFAULT_PROXY_PORT}] [--host 127.0.0.1] [--config FILE]
                      [--store memory|sqlite[:PATH]|redis://…] [--upstream-format openai|anthropic]
                      [--max-body-bytes N] [--connect-timeout MS] [--first-byte-timeout MS]
                      [--idle-timeout MS] [--secret-file FILE] [--heap-reserve MB] [--verbose]

Forwards POST /v1/chat/completions, /v1/responses, /v1/messages and the Gemini API's
/v1beta/models/MODEL:generateContent and :streamGenerateContent to the upstream after fitting them
to the model's window: old tool outputs elided, oldest whole turns pruned, max_tokens kept when it
fits and lowered when it does not (an Anthropic thinking budget with it). An upstream overflow is
recovered and retried once; a request nothing can fit is answered 400 context_length_exceeded.
/v1/messages/count_tokens, /v1/responses/input_tokens and Gemini's :countTokens answer for the
fitted request. Vertex AI's generateContent (projects/…/models/…), /v1/completions and Ollama's
/api/chat and /api/generate pass through unfitted (x-spillway-fit: passthrough; api=…), as do
Responses requests with previous_response_id and Gemini requests with cachedContent
(x-spillway-fit: server-state); a notice at start lists them. Every other path is forwarded
unchanged. Credentials are forwarded, never logged.

  --upstream-format F  openai (default) or anthropic: the upstream's own format, for its limits
  --store S            where learned limits, calibration and conversation state live:
                       memory, sqlite (default: proxy.db in Spillway's data directory;
                       memory when better-sqlite3 is not installed), sqlite:PATH, or
                       redis://HOST:PORT to share them between instances; kept per
                       upstream, learned limits for a day, the rest for a week
  --config FILE        JSON: context_length, output_cap, reserve, summary_max_tokens,
                       cut_runway, max_body_bytes, connect_timeout_ms, first_byte_timeout_ms,
                       idle_timeout_ms, overflow_patterns, probe_limits, models: { ID: { … } }
  --max-body-bytes N   bodies over N bytes are answered 413 (default ${DEFAULT_MAX_BODY_BYTES})
  --connect-timeout MS       wait at most MS to connect to the upstream (default ${DEFAULT_UPSTREAM_TIMEOUTS.connectMs})
  --first-byte-timeout MS    wait at most MS for the first byte of its answer (default ${DEFAULT_UPSTREAM_TIMEOUTS.firstByteMs})
  --idle-timeout MS          wait at most MS between two chunks of its answer (default ${DEFAULT_UPSTREAM_TIMEOUTS.idleMs});
                       a timeout is answered 504 naming it, and beats the config's value
  --secret-file FILE   prove this secret (owner-only; made when missing) to spillway wrap --port,
                       so that wrapped agents of the same user reuse this proxy
  --heap-reserve MB    heap held in reserve (default ${DEFAULT_HEAP_RESERVE_MB}; 0 for none): V8 then runs major
                       collections far less often under load, for that much more memory
  --verbose            log every request (JSON lines on stderr); otherwise warnings only

Prints "listening on http://HOST:PORT" when ready; stops cleanly on SIGINT or SIGTERM.
GET /healthz answers {"status":"ok","upstream":…}; GET /metrics is in the Prometheus text format.`,
  options: {
    upstream: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    config: { type: 'string' },
    store: { type: 'string' },
    'upstream-format': { type: 'string' },
    'max-body-bytes': { type: 'string' },
    'connect-timeout': { type: 'string' },
    'first-byte-timeout': { type: 'string' },
    'idle-timeout': { type: 'string' },
    'secret-file': { type: 'string' },
    'heap-reserve': { type: 'string' },
    verbose: { type: 'boolean' },
  },
  async run({ values }) {
    const upstream = values.upstream as string | undefined;
    if (upstream === undefined)
      throw new SpillwayError(
        'invalid_argument',
        '--upstream URL is required: the server to forward to, such as http://localhost:8000',
      );
    const port = integerFlag(values.port as string | undefined, 'port', { min: 0 }) ?? DEFAULT_PROXY_PORT;
    if (port > 65_535) throw new SpillwayError('invalid_argument', `--port must be <= 65535, got ${port}`);
    const upstreamFormat =
      choiceFlag(values['upstream-format'] as string | undefined, 'upstream-format', [
        'openai',
        'anthropic',
      ] as const) ?? 'openai';
    const maxBodyBytes = integerFlag(values['max-body-bytes'] as string | undefined, 'max-body-bytes');
    const timeout = (flag: string) => integerFlag(values[flag] as string | undefined, flag);
    const timeouts = {
      ...(timeout('connect-timeout') === undefined ? {} : { connectMs: timeout('connect-timeout') }),
      ...(timeout('first-byte-timeout') === undefined ? {} : { firstByteMs: timeout('first-byte-timeout') }),
      ...(timeout('idle-timeout') === undefined ? {} : { idleMs: timeout('idle-timeout') }),
    };
    const configPath = values.config as string | undefined;
    const config = configPath === undefined ? undefined : await loadProxyConfig(configPath);
    const verbose = values.verbose === true;
    const secretFile = values['secret-file'] as string | undefined;
    const ownerSecret = secretFile === undefined ? undefined : loadOrCreateSharedSecret(secretFile);
    const heapReserve =
      integerFlag(values['heap-reserve'] as string | undefined, 'heap-reserve', { min: 0 }) ??
      DEFAULT_HEAP_RESERVE_MB;
    if (heapReserve > MAX_HEAP_RESERVE_MB)
      throw new SpillwayError(
        'invalid_argument',
        `--heap-reserve must be <= ${MAX_HEAP_RESERVE_MB} (MB), got ${heapReserve}`,
      );
    reserveHeap(heapReserve);
    growHeapSteadily();
    allocateYoung();
    const store = openStore(values.store as string | undefined);
    const proxy = await startProxy({
      upstream,
      port,
      host: (values.host as string | undefined) ?? '127.0.0.1',
      upstreamFormat,
      store,
      ...(config ? { config } : {}),
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      ...(ownerSecret === undefined ? {} : { ownerSecret }),
      timeouts,
      onLog(entry) {
        if (entry.event === 'listening') return;
        if (entry.level === 'info' && !verbose && entry.event !== 'apis') return;
        process.stderr.write(`${JSON.stringify(entry)}\n`);
      },
    }).catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    process.stdout.write(`listening on ${proxy.url}\n`);
    await untilStopped();
    await proxy.close();
    await store.close();
    return EXIT_OK;
  },
};
