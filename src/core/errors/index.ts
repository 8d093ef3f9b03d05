export { type ContextTruncatedDetails, ContextTruncatedError } from './context-truncated-error.js';
export { SpillwayError, type SpillwayErrorCode, type SpillwayErrorOptions } from './spillway-error.js';
