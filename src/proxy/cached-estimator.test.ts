import { describe, expect, it } from 'vitest';
import { createEstimator } from '../core/index.js';
import { fakeToolResult } from '../emulator/index.js';
import { cachedEstimator, MIN_CACHED_CHARS } from './cached-estimator.js';

describe('cachedEstimator', () => {
  it('counts exactly as the estimator of its family, remembered or not', () => {
    for (const family of ['o200k', 'conservative'] as const) {
      const plain = createEstimator({ family });
      const cached = cachedEstimator(family);
      expect(cached.name).toBe(plain.name);
      expect(cachedEstimator(family)).toBe(cached);
      const texts = [
        'short',
        'x'.repeat(MIN_CACHED_CHARS),
        fakeToolResult({ name: 'read_file', seed: 3, size: 400 }),
        fakeToolResult({ name: 'run', seed: 4, size: 900 }),
      ];
      for (const text of [...texts, ...texts]) expect(cached.count(text)).toBe(plain.count(text));
    }
  });
});
