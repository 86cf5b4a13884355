import { CommanderError } from 'commander';
import { expandAliases, normalizeBooleanArgs } from './flag-args.js';
import { buildProgram } from './program.js';

/** Runs the CLI on `argv` (without node and script) and resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  program.exitOverride();
  let args: string[];
  try {
    args = normalizeBooleanArgs(expandAliases(argv));
  } catch (error) {
    process.stderr.write(`nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed help, the version, or the error message.
      return error.exitCode;
    }
    process.stderr.write(`nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return exitCode;
}
