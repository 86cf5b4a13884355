export { normalizeBooleanArgs } from './command-line-rewrites.js';
export { FLAGS, type FlagSpec, type FlagType } from './flag-table.js';
export { parseFlagValue } from './flag-value-parsers.js';
export { buildProgram } from './program.js';
export { runCli } from './run.js';
