export * from './audit/index.js';
export * from './clusters/index.js';
export * from './collaboration/index.js';
export * from './config/index.js';
export * from './contents/index.js';
export * from './errors.js';
export * from './events/index.js';
export * from './export/index.js';
export * from './gateway/index.js';
export { escapeHtml, jsonForScript } from './html/escape.js';
export * from './kernels/index.js';
export * from './kernelspecs/index.js';
export * from './lab/index.js';
export * from './legacy/index.js';
export * as protocol from './protocol/index.js';
export * from './rst/index.js';
export * from './sessions/index.js';
export * from './terminals/index.js';
export * from './usage/index.js';
export { writeFileAtomic } from './util/atomic-write.js';
export { isObject } from './util/is-object.js';
export {
  SpareBuffer,
  type SpareBufferOptions,
  secondSpareBuffer,
  sharedSpareBuffer,
} from './util/spare-buffer.js';
export { removeOrphanTempsOf, type SweepOptions, sweepOrphanTemps, tempPathFor } from './util/temp-files.js';
export { isWellFormedText } from './util/unicode.js';
export { describeIssues } from './util/validation-issues.js';
