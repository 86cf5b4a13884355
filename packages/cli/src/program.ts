import { defaultConfigDir, defaultDataDir } from '@nbserve/http';
import { Command } from 'commander';
import { addFlag } from './commander-options.js';
import { type KernelspecInstallFlags, runKernelspecInstall } from './commands/kernelspec.js';
import { runPassword } from './commands/password.js';
import { runServe } from './commands/serve.js';
import { FLAGS } from './flag-table.js';
import { cliVersion } from './version.js';

/** The serve options the flags given on the command line set, keyed by option name. */
function collectOptions(command: Command): Record<string, unknown> {
  const values = command.opts();
  const options: Record<string, unknown> = {};
  for (const flag of FLAGS) {
    const key = flag.name.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
    if (values[key] !== undefined) options[flag.option] = values[key];
  }
  return options;
}

/**
 * The `nbserve` command, the one parser of every command line (run.ts): `nbserve [root]` serves
 * (through `serve`; tests pass another), `nbserve password` sets the login password.
 */
export function buildProgram(
  setExitCode: (code: number) => void,
  serve: (root: string | undefined, options: Record<string, unknown>) => Promise<number> = runServe,
): Command {
  const program = new Command('nbserve')
    .description('A fast, embeddable, Jupyter-compatible notebook server.')
    .version(cliVersion(), '-V, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show this help and exit')
    .argument('[root]', 'directory to serve (default: the current directory)')
    .showHelpAfterError('(run nbserve --help for every flag)')
    .allowExcessArguments(false)
    // Subcommands have their own --config-dir; program flags must not swallow theirs.
    .enablePositionalOptions();
  for (const flag of FLAGS) addFlag(program, flag);
  program.addHelpText(
    'after',
    `
Every flag also takes the --flag=value form; boolean flags take --flag=true|false too.
The URL printed at start carries the token; open it once and the browser keeps a login cookie.

Examples:
  nbserve examples/notebooks
  nbserve --port=9000 --no-browser ~/work
  nbserve password`,
  );
  program.action(async (root: string | undefined, _opts: unknown, command: Command) => {
    setExitCode(await serve(root, collectOptions(command)));
  });

  program
    .command('password')
    .description('set the login password (stored as a scrypt hash in the config dir); logs every browser out')
    .option('--config-dir <dir>', 'where nbserve_config.json lives', defaultConfigDir())
    .option('--data-dir <dir>', 'where the login cookie secret lives', defaultDataDir())
    .action(async (opts: { configDir: string; dataDir: string }) => {
      setExitCode(await runPassword(opts));
    });
  program
    .command('kernelspec')
    .description("the built-in JavaScript and TypeScript kernels' specs")
    .command('install')
    .description('write the javascript and typescript kernelspecs into a Jupyter kernels directory')
    .option('--user', 'install for the current user (~/.local/share/jupyter/kernels)')
    .option('--sys-prefix', "install into the active Python environment's share/jupyter/kernels")
    .option('--prefix <dir>', 'install into <dir>/share/jupyter/kernels')
    .action(async (opts: KernelspecInstallFlags) => {
      setExitCode(await runKernelspecInstall(opts));
    });
  return program;
}
