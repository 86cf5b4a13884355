export * from './clusters/index.js';
export * from './config/index.js';
export * from './contents/index.js';
export * from './errors.js';
export * from './export/index.js';
export * as protocol from './protocol/index.js';
export * from './rst/index.js';
