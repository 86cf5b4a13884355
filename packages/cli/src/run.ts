import { expandAliases, normalizeBooleanArgs } from './command-line-rewrites.js';
import { runServe } from './commands/serve.js';
import { parseServeArgs } from './serve-args.js';

/** Runs the CLI on `argv` (without node and script) and resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  let args: string[];
  try {
    args = normalizeBooleanArgs(expandAliases(argv));
  } catch (error) {
    process.stderr.write(`nbserve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const serve = parseServeArgs(args);
  if (serve) {
    try {
      return await runServe(serve.root, serve.options);
    } catch (error) {
      return failed(error);
    }
  }
  // help, the version, subcommands and mistakes: commander reads those and prints its messages
  const { CommanderError } = await import('commander');
  const { buildProgram } = await import('./program.js');
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
