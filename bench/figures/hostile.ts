/** The hostile-input suite's own counters (`npm run hostile`, hostile.json), one row per scenario. */
import { count, table } from './format.js';

type Figures = Record<string, number>;

type Round = { tried: number; handled: number };

export interface HostileResult {
  tests: { files: number; total: number; passed: number; failed: number };
  /** Cases (one a test) tried and handled, in all and per round of the suite (older files lack it). */
  cases?: { tried: number; handled: number; rounds: { first: Round; second: Round } };
  totals: {
    crashes: number;
    hangs_past_limit: number;
    cross_conversation_bytes: number;
    lost_turns: number;
    answered_500: number;
  };
  scenarios: Record<string, Figures>;
}

/** What each scenario tried and what came out, in the suite's words; its figures fill the blanks. */
const ROWS: Array<[string, (f: Figures) => [string, string]]> = [
  [
    'request_lines',
    (f) => [
      `${f.sent} request lines: targets the URL parser rejects (\`//%zz/\`, \`http://[/x\`, \`//x:-1/\`, …) and lines Node's parser refuses, against the proxy and the emulator`,
      `${f.answered} of ${f.sent} answered (400; 431 for a 20 KB target), ${f.crashes} crashes`,
    ],
  ],
  [
    'request_lines',
    (f) => [
      `${f.hostile_paths} paths built to leave the upstream's base path (\`/../../etc/passwd\`, \`%2e%2e\`, \`//evil.example/…\`)`,
      `${f.left_base_path} left it`,
    ],
  ],
  [
    'upload_aborts',
    (f) => [
      `${f.sent} uploads cut half-way`,
      `${f.logged_client_aborted} logged \`client_aborted\`, ${f.counted_as_200} counted as 200`,
    ],
  ],
  [
    'deep_bodies',
    (f) => [
      `${f.sent} bodies nested up to 10,000 levels (and 32 MiB of \`[\`), ${f.cli_files} such files given to \`estimate\`, \`fit\` and \`serve --config\``,
      `${f.answered_400} answered 400 \`json_too_deep\` and ${f.deep_but_sane_answered_200} within the limit 200; ${f.cli_exit_2} exits 2; ${f.answered_500} answers 500`,
    ],
  ],
  [
    'malformed_bodies',
    (f) => [
      `${f.sent} bodies of every wrong shape (not JSON, invalid UTF-8, \`__proto__\`, \`max_tokens\` 1e308, 50,000 messages, …)`,
      `${f.answered_500} answers 500`,
    ],
  ],
  [
    'large_bodies',
    (f) => [
      `${f.large_bodies} bodies of ${f.large_body_mib} MiB completed at the same moment as a small one`,
      `the small one reached the upstream after ${f.large_upstream_requests_before_small} of them and was answered after ${f.answered_before_small} of them`,
    ],
  ],
  [
    'shared_heads_and_ids',
    (f) => [
      `conversations with the same system prompt, first message and tool-call ids, private tool outputs, through memory, SQLite and Redis stores, with one API key and with two (${count((f.memory_requests ?? 0) + (f.sqlite_requests ?? 0) + (f.redis_requests ?? 0))} requests)`,
      `${f.cross_conversation_bytes} bytes of one in the other's upstream requests`,
    ],
  ],
  [
    'model_names',
    (f) => [
      `${count(f.client_requests ?? 0)} requests: ${count(f.names_over_limit ?? 0)} with 1 MB model names, ${count(f.distinct_names ?? 0)} with distinct names, to \`spillway serve\` in its own process`,
      `names over ${f.name_limit_chars} characters answered 400; ${f.upstream_discovery_probes} discovery probes reached the upstream in all; resident memory grew ${f.rss_growth_mb} MB`,
    ],
  ],
  [
    'hung_peers',
    (f) => [
      'an upstream whose connections never open, one that never answers, one that stops before and after streamed content and mid-body (limits of 400 ms)',
      `${f.connect_timeouts} connect, ${f.first_byte_timeouts} first-byte and ${f.idle_timeouts} idle timeouts, each a 504 naming its setting or a cut stream; the longest wait ended ${f.longest_wait_past_limit_ms} ms past its limit`,
    ],
  ],
  [
    'cut_bodies',
    (f) => [
      'a non-streaming answer cut mid-body, through the proxy and the provider client',
      `asked for again (${f.proxy_retried} by the proxy, ${f.client_retried} by the client); ${f.proxy_whole_answers} whole answer to the proxy's client`,
    ],
  ],
  [
    'store_writers',
    (f) => [
      `${f.writers} processes appending ${count(f.append_turn_calls ?? 0)} turns to one SQLite file at once`,
      `${f.append_turn_failed} failed`,
    ],
  ],
  [
    'store_sigkill',
    (f) => [
      `a writer killed with SIGKILL ${f.kills} times while ${f.concurrent_writers} others append ${count(f.append_turn_calls ?? 0)} turns`,
      `${f.append_turn_failed} failed, ${f.lost_turns} lost`,
    ],
  ],
  [
    'parallel_chats',
    (f) => [`${f.runs} \`spillway chat -p\` runs on one store at once`, `${f.succeeded} succeeded`],
  ],
  [
    'learned_limits',
    (f) => [
      `${f.attacks} overflow sentences a client made the upstream echo (windows of 2,000 and 10,000,000 tokens, on one key and on two keys that agree; prompt counts 4× the request's)`,
      `${f.windows_set_for_other_keys} windows set for another key, ${f.unmatched_windows_learned} figures learned that matched no request sent; two agreeing keys moved everyone's window one step of ${f.shared_step_factor}×; another key's count after the stated ones ${f.count_raised_for_other_keys}× what it was before; ${f.stored_secrets} keys and ${f.stored_without_expiry} entries without expiry in the store`,
    ],
  ],
  [
    'stalled_streams',
    (f) => [
      `${f.streams} stream that sends one chunk and then nothing, to \`spillway chat\``,
      `${f.hung} hung; ${f.sessions_kept} session kept with its prompt`,
    ],
  ],
  [
    'keep_alives',
    (f) => [
      `${f.streams} streams in a long prefill sending \`: PROCESSING\` comments or Anthropic pings through the proxy, one ending in an overflow`,
      `${f.held_back} held back before the content; ${f.recovered_after_keep_alive} overflow recovered inside the stream the client had`,
    ],
  ],
  [
    'one_writer',
    (f) => [
      `a second \`spillway chat --resume\` of a session while a first runs a turn; a holder killed with SIGKILL`,
      `${f.refused} of ${f.second_writers} refused naming the holder, ${f.interleaved_turns} turns interleaved; ${f.freed} of ${f.killed_holders} sessions free again after the kill`,
    ],
  ],
  [
    'file_tools',
    (f) => [
      `${f.attacks} approved writes whose path changed before the write (a directory swapped for a link outside, a missing directory created as one, another file moved into place) or that go through a hard link to a file outside`,
      `${f.refused} refused, ${f.outside_changed} files outside the project changed`,
    ],
  ],
  [
    'escaping_commands',
    (f) => [
      `${f.commands} \`run_command\` commands leaving children in sessions of their own (\`setsid\`, \`setsid -f\`), on exit and at the time limit`,
      `${f.survivors} still running after the tool call returned`,
    ],
  ],
  [
    'memory_store',
    (f) => [
      `${count(f.conversations ?? 0)} conversations over ${count(f.model_names ?? 0)} model names into a memory store capped at ${count(f.cap ?? 0)} entries`,
      `at most ${count(f.held_at_most ?? 0)} held (${f.held_over_cap} over the cap); ${f.left_after_expiry} left once every expiry passed, swept unread`,
    ],
  ],
  [
    'first_byte_timer',
    (f) => [
      `${f.busy_proxy_answers} answers that arrived while the proxy's event loop was busy for three times the first-byte timeout`,
      `${f.answered_504} answered 504`,
    ],
  ],
  [
    'half_close',
    (f) => [`${f.requests} complete requests followed by a half-close`, `${f.answered} answered`],
  ],
  [
    'redis_outage',
    (f) => [
      `Redis frozen with SIGSTOP for ${f.requests_while_frozen} requests, then thawed; Redis stopped for ${f.requests_while_stopped} more`,
      `${f.failed_requests} failed; ${f.requests_that_waited_for_redis} waited for Redis's command timeout before the breaker opened; it closed again ${f.requests_until_closed_after_thaw} requests after the thaw`,
    ],
  ],
];

export function hostileSummary(result: HostileResult): string {
  const { tests, totals, cases } = result;
  const tried =
    cases === undefined
      ? ''
      : `${cases.handled} of ${cases.tried} cases handled (${cases.rounds.second.handled} of ${cases.rounds.second.tried} in the second round, one per failure the first left). `;
  return `${tried}${tests.passed} of ${tests.total} tests passed in ${tests.files} files, with ${totals.crashes} crashes, ${totals.hangs_past_limit} hangs past the configured limits, ${totals.cross_conversation_bytes} cross-conversation bytes, ${totals.lost_turns} lost turns and ${totals.answered_500} answers 500.`;
}

/** One row per recorded scenario; a scenario the suite no longer records is left out. */
export function hostileTable(result: HostileResult): string {
  const rows = ROWS.flatMap(([scenario, row]) => {
    const figures = result.scenarios[scenario];
    return figures ? [row(figures)] : [];
  });
  return table(['what was tried', 'what came out'], rows);
}
