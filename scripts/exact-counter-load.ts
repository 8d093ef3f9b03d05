/**
 * Loads the exact counter of one model in a fresh process and prints how long that took, in
 * milliseconds (importing spillway/tokenizers and the tokenizer package, building the vocabulary, a
 * first count). Used by scripts/exact-counters.ts.
 */
const started = performance.now();
const { exactCounterFor } = await import('../src/tokenizers/index.js');
const counter = await exactCounterFor(process.argv[2]);
counter?.count('Hello, world');
console.log(JSON.stringify({ loaded: counter !== undefined, ms: Math.round(performance.now() - started) }));
