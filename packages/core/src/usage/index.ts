export { ProcessUsage, type TreeUsage } from './process-usage.js';
