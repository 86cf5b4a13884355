export { normalizeBooleanArgs } from './command-line-rewrites.js';
export { parseFlagValue } from './flag-values.js';
export { FLAGS, type FlagSpec, type FlagType } from './flags.js';
export { buildProgram } from './program.js';
export { runCli } from './run.js';
