import { defineConfig } from 'vitest/config';

/**
 * Three suites. `npm test` runs `unit`: the unit tests and the integration tests that run in-process
 * over loopback (a proxy, an emulator, an SDK client), a few minutes on two cores. `npm run
 * test:e2e` runs `e2e`: everything that spawns the CLI or a terminal, installs the packed package,
 * kills processes or floods a server, the longest property tests and the catalog's ReDoS proofs. `npm run test:clients` runs `clients`: real agent CLIs from the
 * npm registry. `.ci/run` runs all three.
 */

/**
 * Tests that spawn processes, drive a terminal, install the package or load a server hard, and the
 * property tests that take a minute of random transcripts.
 */
const E2E = [
  'src/core/manager/fit.property.test.ts',
  'src/core/overflow/catalog/catalog-redos.test.ts',
  'test/e2e/chat-print.test.ts',
  'test/e2e/chat-terminal*.test.ts',
  'test/e2e/cli-*.test.ts',
  'test/e2e/demo-cli.test.ts',
  'test/e2e/demo-report-render.test.ts',
  'test/e2e/emulator-bad-input.test.ts',
  'test/e2e/emulator-cli.test.ts',
  'test/e2e/hostile-*.test.ts',
  'test/e2e/limits-cli.test.ts',
  'test/e2e/loop.test.ts',
  'test/e2e/package-*.test.ts',
  'test/e2e/proxy-cli.test.ts',
  'test/e2e/proxy-load.test.ts',
  'test/e2e/proxy-redis.test.ts',
  'test/e2e/readme-commands.test.ts',
  'test/e2e/store-crash.test.ts',
  'test/e2e/wrap-*.test.ts',
];

/** Real agent CLIs, installed from the npm registry. */
const CLIENTS = ['test/e2e/real-client*.test.ts'];

const ALL = ['src/**/*.test.ts', 'test/**/*.test.ts'];

export default defineConfig({
  test: {
    // Guards against a hang, not a speed limit: a loaded two-core machine runs a test many times
    // slower than an idle one, and a test must not fail for that.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ALL, exclude: [...E2E, ...CLIENTS] } },
      { extends: true, test: { name: 'e2e', include: E2E } },
      { extends: true, test: { name: 'clients', include: CLIENTS } },
    ],
  },
});
