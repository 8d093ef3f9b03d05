import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../core/index.js';
import { asMissingDependency, importOptional, requireOptional } from './load-optional.js';

const ABSENT = { specifier: 'spillway-absent-package/entry', feature: 'the test feature' };

function failure(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('loading an optional part', () => {
  it('loads an installed package, synchronously or with import()', async () => {
    expect(
      typeof requireOptional<{ encode: unknown }>({
        specifier: 'gpt-tokenizer/cjs/encoding/o200k_base',
        feature: 'x',
      }).encode,
    ).toBe('function');
    expect(
      typeof (
        await importOptional<{ createParser: unknown }>({ specifier: 'eventsource-parser', feature: 'x' })
      ).createParser,
    ).toBe('function');
  });

  it('fails with missing_dependency naming the package and the command when it is not installed', async () => {
    const required = failure(() => requireOptional(ABSENT));
    const imported = await importOptional(ABSENT).catch((error: unknown) => error);
    for (const error of [required, imported]) {
      expect(SpillwayError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'missing_dependency',
        data: { package: 'spillway-absent-package' },
        message: expect.stringContaining('npm install spillway-absent-package'),
      });
      expect((error as SpillwayError).message).toContain('the test feature');
    }
  });

  it('names a scoped package without its entry point', () => {
    const error = failure(() =>
      requireOptional({ specifier: '@spillway-absent/scope/deep/entry.js', feature: 'x' }),
    );
    expect(error).toMatchObject({ code: 'missing_dependency', data: { package: '@spillway-absent/scope' } });
  });

  it('lets through the error of an installed package that fails to load', () => {
    // The package is installed; the entry point is not: not a missing package, its own error stands.
    const error = failure(() =>
      requireOptional({ specifier: 'eventsource-parser/no-such-entry', feature: 'x' }),
    );
    expect(SpillwayError.isInstance(error)).toBe(false);
  });

  it('turns the failed static import of a missing package into missing_dependency, and nothing else', async () => {
    // Node's own error for a static import of a package that is not installed, from a real process.
    const script = `import('spillway-absent-package').catch((error) => console.log(JSON.stringify({ code: error.code, message: error.message })));`;
    const fields = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '--eval', script], { encoding: 'utf8' }),
    ) as { code: string; message: string };
    const failed = Object.assign(new Error(fields.message), { code: fields.code });
    expect(asMissingDependency(failed, 'spillway serve')).toMatchObject({
      code: 'missing_dependency',
      data: { package: 'spillway-absent-package' },
    });
    const other = new TypeError('not a module problem');
    expect(asMissingDependency(other, 'spillway serve')).toBe(other);
  });
});
