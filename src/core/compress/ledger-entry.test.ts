import { describe, expect, it } from 'vitest';
import { ledgerEntry } from './ledger-entry.js';

const bash = (command: string) => ({ name: 'bash', arguments: JSON.stringify({ command }) });

describe('ledgerEntry', () => {
  it('names a file read with its line range, from a shell command or a read tool', () => {
    expect(ledgerEntry(bash("sed -n '10,40p' src/app.py"))).toEqual({
      kind: 'read',
      text: 'src/app.py lines 10–40',
    });
    expect(ledgerEntry(bash('cd /testbed && nl -ba src/a.py | sed -n 5,9p'))).toEqual({
      kind: 'read',
      text: 'src/a.py lines 5–9',
    });
    expect(ledgerEntry(bash('head -n 20 setup.py'))).toEqual({ kind: 'read', text: 'setup.py lines 1–20' });
    expect(
      ledgerEntry({ name: 'read', arguments: JSON.stringify({ path: 'src/x.ts', offset: 10, limit: 20 }) }),
    ).toEqual({ kind: 'read', text: 'src/x.ts lines 10–29' });
    expect(
      ledgerEntry({
        name: 'str_replace_editor',
        arguments: JSON.stringify({ command: 'view', path: '/repo/a.py', view_range: [1, 20] }),
      }),
    ).toEqual({ kind: 'read', text: '/repo/a.py lines 1–20' });
  });

  it('quotes a command it ran, cut short', () => {
    expect(ledgerEntry(bash('python -m pytest tests/test_x.py -x'))).toEqual({
      kind: 'ran',
      text: '`python -m pytest tests/test_x.py -x`',
    });
    expect(ledgerEntry(bash(`echo ${'x'.repeat(200)}`)).text.length).toBeLessThanOrEqual(62);
  });
});
