export { runCli } from '../src/run.js';
