export * from './config-sections.js';
