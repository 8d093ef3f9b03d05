import { describe, expect, it } from 'vitest';
import { droppedTurnsMarker, ledgerText, MAX_LEDGER_CHARS } from './markers.js';

describe('droppedTurnsMarker', () => {
  it('names what the dropped turns read and ran, and how to get it back', () => {
    const text = droppedTurnsMarker(
      {
        recallId: 7,
        dropped: 6,
        turns: 3,
        entries: [
          { kind: 'read', text: 'src/a.py lines 1–40' },
          { kind: 'ran', text: '`pytest -x`' },
          { kind: 'read', text: 'src/b.py' },
        ],
      },
      { recall: false },
    );
    expect(text).toBe(
      '[pruned #7: 6 earlier messages (3 turns) left out to fit the window. They read src/a.py lines 1–40, src/b.py; ran `pytest -x`; read or run again what you need]',
    );
    expect(droppedTurnsMarker({ recallId: 7, dropped: 6, turns: 3 }, { recall: true })).toBe(
      '[pruned #7: 6 earlier messages (3 turns) left out to fit the window; recall #7 brings them back]',
    );
  });

  it('lists the names seen only in the dropped turns after what they read and ran', () => {
    const text = droppedTurnsMarker(
      {
        recallId: 3,
        dropped: 4,
        turns: 2,
        entries: [{ kind: 'read', text: 'src/a.py' }],
        names: ['_cstack', 'separable.py'],
      },
      { recall: false },
    );
    expect(text).toBe(
      '[pruned #3: 4 earlier messages (2 turns) left out to fit the window. They read src/a.py. Names seen only there: _cstack, separable.py; read or run again what you need]',
    );
    expect(
      droppedTurnsMarker({ recallId: 3, dropped: 4, turns: 2, names: ['_cstack'] }, { recall: true }),
    ).toBe(
      '[pruned #3: 4 earlier messages (2 turns) left out to fit the window. Names seen only there: _cstack; recall #3 brings them back]',
    );
  });

  it('keeps the newest entries when they are too many, and says how many earlier ones it left out', () => {
    const entries = Array.from({ length: 200 }, (_, index) => ({
      kind: 'read' as const,
      text: `src/file${index}.py`,
    }));
    const text = ledgerText(entries);
    expect(text.length).toBeLessThanOrEqual(MAX_LEDGER_CHARS);
    expect(text).toContain('src/file199.py');
    expect(text).not.toContain('src/file0.py,');
    expect(text).toMatch(/\(and [\d,]+ earlier\)\.$/);
  });
});
