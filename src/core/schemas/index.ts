/**
 * @module
 * The tool-schema floor: what tool schemas and system messages take from every request, scaled by
 * the tokenizer ratio the backend reports, attributed per source (each MCP server, built-ins, the
 * caller), with notices when it crowds out the conversation.
 */
export {
  CALLER_SOURCE,
  type MeasureSchemaFloorOptions,
  measureSchemaFloor,
  type SchemaFloor,
  type SchemaSource,
  toolEstimate,
} from './measure-schema-floor.js';
export {
  describeSources,
  formatTokens,
  NOTICE_SOURCES,
  SCHEMA_FLOOR_ERROR_RATIO,
  SCHEMA_FLOOR_LEVELS,
  SCHEMA_FLOOR_WARNING_RATIO,
  type SchemaFloorLevel,
  type SchemaFloorNotice,
  schemaFloorLevel,
  schemaFloorNotice,
} from './schema-floor-notice.js';
export { type SchemaFloorCheck, SchemaFloorTracker } from './schema-floor-tracker.js';
export { MAX_TOKENIZER_RATIO, MIN_TOKENIZER_RATIO, observeTokenizerRatio } from './tokenizer-ratio.js';
