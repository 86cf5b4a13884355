export { newNotebook, type ParsedNotebook, readNotebook, serializeNotebook, toNotebookV4 } from './notebook.js';
export { type CutJson, materialize, parseJsonBytes } from './parse-bytes.js';
export { JsonTooDeepError, parseJson, parseUntrustedJson } from './parse-json.js';
export { type NotebookV4, notebookV4Schema, validateNotebookV4 } from './schema-v4.js';
export type { RawStrings } from './sorted-json.js';
export { upgradeV2ToV3 } from './upgrade-v2.js';
export { upgradeV3ToV4 } from './upgrade-v3.js';
