export { FLAGS, type FlagSpec, type FlagType, normalizeBooleanArgs, parseFlagValue } from './flags.js';
export { buildProgram } from './program.js';
export { runCli } from './run.js';
