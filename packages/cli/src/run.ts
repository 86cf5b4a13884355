import { CommanderError } from 'commander';
import { expandAliases, normalizeBooleanArgs } from './command-line-rewrites.js';
import { buildProgram } from './program.js';

/**
 * Runs the CLI on `argv` (without node and script) and resolves to the exit code. Commander reads
 * every command line (program.ts), once aliases and `--x=true|false` are rewritten.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  let args: string[];
  try {
    args = normalizeBooleanArgs(expandAliases(argv));
  } catch (error) {
    process.stderr.write(`nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  let exitCode = 0;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  program.exitOverride();
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed help, the version, or the error message.
      return error.exitCode;
    }
    return failed(error);
  }
  return exitCode;
}

function failed(error: unknown): number {
  process.stderr.write(`nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}
