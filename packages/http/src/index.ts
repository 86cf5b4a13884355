export { type CreateAppOptions, createApp, type NbserveApp } from './app.js';
export type { NbserveOptions } from './options.js';
export { createServices, type Services } from './services.js';
