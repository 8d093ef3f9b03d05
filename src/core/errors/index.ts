export { type ContextTruncatedDetails, ContextTruncatedError } from './context-truncated-error.js';
export { HeadroomError, type HeadroomErrorCode, type HeadroomErrorOptions } from './headroom-error.js';
