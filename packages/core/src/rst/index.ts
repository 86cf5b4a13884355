export { renderRstBuiltin } from './builtin-renderer.js';
export { type DocutilsOptions, DocutilsRenderer } from './docutils-renderer.js';
export { type RenderedRst, RstService, type RstServiceOptions } from './rst-service.js';
export { safeLinkUrl, sanitizeUrlAttributes } from './safe-url.js';
