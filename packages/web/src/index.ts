export { getWebAssets } from './server/assets.js';
export { buildWebAssets, type StaticAsset, type WebAssets } from './server/build.js';
export { PAGE_CSP, type PageConfig, type PageInput, pageCsp, renderPage } from './server/page.js';
export { firstPageRoute } from './shared/first-page.js';
