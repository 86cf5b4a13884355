export { decodeBase64Strict, encodeBase64Lines } from './base64.js';
export { CHECKPOINT_ID, type CheckpointStore, DEFAULT_CHECKPOINTS_KEEP } from './checkpoints.js';
export { type FileCheckpointOptions, FileCheckpointStore } from './file-checkpoints.js';
export { FileSystemStore } from './fs-store.js';
export { DEFAULT_HIDE_GLOBS, isHiddenPath } from './hidden.js';
export { ContentsManager, type ContentsManagerOptions } from './manager.js';
export { MemoryCheckpointStore } from './memory-checkpoints.js';
export { MemoryStore } from './memory-store.js';
export { guessMimeType, guessType } from './mimetypes.js';
export type {
  CheckpointModel,
  ContentFormat,
  ContentsModel,
  ContentType,
  GetOptions,
  OpenedFile,
  SaveInput,
  SaveResult,
  SerializedModel,
} from './model.js';
export * from './nbformat/index.js';
export { allCellsTrusted, markCells, NotebookNotary } from './notary.js';
export { normalizeApiPath } from './paths.js';
export type { SavePrecondition } from './save-precondition.js';
export {
  FileSignatureStore,
  loadOrCreateSecret,
  MemorySignatureStore,
  type SignatureStore,
} from './signature-stores.js';
export type {
  ByteRange,
  ChildrenWatch,
  ContentsStore,
  StoreCapabilities,
  StoreEntry,
  StoreNames,
  StoreStat,
  WriteOptions,
} from './store.js';
export { isoTimestamp, parseTimestampMicros } from './timestamps.js';
