export { getWebAssets } from './bundle/assets.js';
export { buildWebAssets, type StaticAsset, type WebAssets } from './bundle/build.js';
export { type DashboardBodyInput, readerLocale, renderDashboardBody } from './server/dashboard-body.js';
export { PAGE_CSP, type PageConfig, type PageInput, pageCsp, renderPage } from './server/page.js';
export { FIRST_PAGE } from './shared/first-page.js';
