/**
 * @module
 * The optional parts: packages Spillway loads only where they are used (SQLite, Redis, MCP, exact
 * tokenizers), so that the library installs without them. A part that is not installed fails with a
 * `missing_dependency` error that names the package to install.
 */
export { asMissingDependency, importOptional, type OptionalPart, requireOptional } from './load-optional.js';
