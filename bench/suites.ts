/**
 * How long each test suite takes on this machine: `npm test` (unit and in-process integration),
 * `npm run test:e2e` and `npm run test:clients`, each run once as a whole with vitest's JSON report,
 * one after the other. Wall time is what a developer waits; the load at the start is in the stamp.
 * Run by name only (`npm run bench -- suites`): it takes as long as the suites themselves.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One suite's run. */
export interface SuiteRun {
  suite: 'unit' | 'e2e' | 'clients';
  script: string;
  seconds: number;
  files: number;
  tests: number;
  failed: number;
}

const SUITES: Array<Pick<SuiteRun, 'suite' | 'script'>> = [
  { suite: 'unit', script: 'npm test' },
  { suite: 'e2e', script: 'npm run test:e2e' },
  { suite: 'clients', script: 'npm run test:clients' },
];

function runSuite(project: string, report: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        'node_modules/vitest/vitest.mjs',
        'run',
        '--project',
        project,
        '--reporter=json',
        `--outputFile=${report}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

export async function benchSuites(): Promise<{ suites: SuiteRun[] }> {
  const directory = mkdtempSync(join(tmpdir(), 'spillway-suites-'));
  const suites: SuiteRun[] = [];
  try {
    for (const { suite, script } of SUITES) {
      const report = join(directory, `${suite}.json`);
      const started = performance.now();
      await runSuite(suite, report);
      const seconds = (performance.now() - started) / 1000;
      const parsed = JSON.parse(readFileSync(report, 'utf8')) as {
        numTotalTests: number;
        numFailedTests: number;
        testResults: unknown[];
      };
      suites.push({
        suite,
        script,
        seconds: Number(seconds.toFixed(1)),
        files: parsed.testResults.length,
        tests: parsed.numTotalTests,
        failed: parsed.numFailedTests,
      });
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return { suites };
}
