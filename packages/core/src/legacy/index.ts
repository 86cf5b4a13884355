export { downgradeV4ToV3 } from './downgrade-v3.js';
export {
  type LegacyCheckpoint,
  type LegacyNotebook,
  type LegacyNotebookEntry,
  LegacyNotebooks,
} from './legacy-notebooks.js';
export { LEGACY_ID_PATTERN, LegacyNotebookRegistry, type LegacyNotebookRegistryOptions } from './notebook-registry.js';
export {
  adaptV4ToV5,
  adaptV5ToV4,
  decodeLegacyFrame,
  encodeLegacyFrame,
  LEGACY_MAX_FRAME_BYTES,
} from './protocol-v4.js';
export { notebookFromPy } from './py-notebook.js';
