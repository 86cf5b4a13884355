export { normalizeBooleanArgs } from './flag-args.js';
export { FLAGS, type FlagSpec, type FlagType, parseFlagValue } from './flags.js';
export { buildProgram } from './program.js';
export { runCli } from './run.js';
