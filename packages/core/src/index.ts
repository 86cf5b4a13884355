export * from './errors.js';
export * as protocol from './protocol/index.js';
export * from './clusters/index.js';
export * from './export/index.js';
export * from './contents/index.js';
export * from './rst/index.js';
export * from './legacy/index.js';
