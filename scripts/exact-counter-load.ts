/**
 * Loads the exact counter of one model in a fresh process and prints how long that took, in
 * milliseconds (import, vocabulary build, first count). Used by scripts/exact-counters.ts.
 */
import { exactCounterFor } from '../src/tokenizers/index.js';

const started = performance.now();
const counter = await exactCounterFor(process.argv[2]);
counter?.count('Hello, world');
console.log(JSON.stringify({ loaded: counter !== undefined, ms: Math.round(performance.now() - started) }));
