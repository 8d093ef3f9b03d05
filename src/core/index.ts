/**
 * @module
 * Spillway's core: pure, dependency-free, deterministic. No `node:` imports, no clock, no randomness,
 * no environment; what it needs is passed in.
 */

export * from './budget/detect-silent-truncation.js';
export * from './budget/index.js';
export * from './compact/index.js';
export * from './compress/index.js';
export { type CutMiddle, type KeepEndsOptions, keepEnds } from './cut/index.js';
export * from './driver/index.js';
export * from './errors/index.js';
export * from './manager/index.js';
export * from './overflow/index.js';
export * from './policy/index.js';
export * from './prune/index.js';
export * from './recovery/index.js';
export * from './schemas/index.js';
export * from './tokens/index.js';
export * from './transcript/index.js';
