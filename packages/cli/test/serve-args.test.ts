import { describe, expect, it } from 'vitest';
import { expandAliases, normalizeBooleanArgs } from '../src/flag-args.js';
import { buildProgram } from '../src/program.js';
import { parseServeArgs, type ServeArgs, SUBCOMMANDS } from '../src/serve-args.js';

/** What commander's program (program.ts) hands to serve for `argv`, or its exit code when it serves nothing. */
async function throughCommander(args: string[]): Promise<ServeArgs | { exitCode: number }> {
  let served: ServeArgs | undefined;
  const program = buildProgram(
    () => {},
    async (root, options) => {
      served = { root, options };
      return 0;
    },
  );
  program.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    return { exitCode: (error as { exitCode: number }).exitCode };
  }
  return served ?? { exitCode: 0 };
}

const prepare = (argv: string[]) => normalizeBooleanArgs(expandAliases(argv));

describe('the serve line read without commander', () => {
  const served: string[][] = [
    [],
    ['notebooks'],
    ['notebooks', '--port', '9000', '--no-browser'],
    ['--port=9000', '--ip', '127.0.0.1', 'work', '--token='],
    ['--token', '', '--browser', '--no-browser', '--browser'],
    ['--allow-origin', 'a.example,b.example', '--allow-origin=c.example', '--allow-hidden=false'],
    ['--gateway-header', 'X-A=1', '--gateway-header=X-B=two', '--gateway-env', 'K=v'],
    ['--kernel-pool', 'python3=1', '--kernel-pool=javascript=2', '--port', '0', '--port', '8'],
    ['--max-body-size', '512M', '--kernel-buffer-max-bytes=16K', '--base-url', '/user/x/'],
    ['--debug', '--SingleUserNotebookApp.default_url=/tree', '--collaboration=yes', 'dir with spaces'],
    ['--log-level=warn', '--terminals=0', '--cull-idle-timeout', '600', '--notebook-dir', '/tmp'],
    ['--expose-app-in-browser', '--default-url', '/lab'],
  ];
  it.each(served.map((argv) => [argv]))('%j: the same root and options as commander', async (argv) => {
    const args = prepare(argv);
    const fast = parseServeArgs(args);
    expect(fast).toBeDefined();
    expect(fast).toEqual(await throughCommander(args));
  });

  it('reads --expose-app-in-browser into the option of the same name', () => {
    expect(parseServeArgs(prepare(['--expose-app-in-browser', '--default-url=/lab']))?.options).toMatchObject({
      exposeAppInBrowser: true,
      defaultUrl: '/lab',
    });
    expect(parseServeArgs(prepare(['--no-expose-app-in-browser']))?.options).toMatchObject({
      exposeAppInBrowser: false,
    });
  });

  // each of these commander must read: it prints help, the version, a subcommand's work or an error
  const leftToCommander: string[][] = [
    ['--help'],
    ['-h'],
    ['-V'],
    ['--version'],
    ['--unknown-flag'],
    ['--port'],
    ['--port', '--ip', 'x'],
    ['--port', 'ninety'],
    ['--port=70000'],
    ['--kernel-pool=python3=many'],
    ['--max-body-size', 'huge'],
    ['a', 'b'],
    ['-x'],
    ['--Port=1'],
  ];
  it.each(leftToCommander.map((argv) => [argv]))('%j: left to commander, which serves nothing', async (argv) => {
    const args = prepare(argv);
    expect(parseServeArgs(args)).toBeUndefined();
    expect(await throughCommander(args)).toHaveProperty('exitCode');
  });

  it('"--" before the root: left to commander, which serves that root', async () => {
    const args = prepare(['--', '-dir']);
    expect(parseServeArgs(args)).toBeUndefined();
    expect(await throughCommander(args)).toEqual({ root: '-dir', options: {} });
  });

  it("knows every subcommand of commander's program (and commander's own `help`)", () => {
    const names = buildProgram(() => {}).commands.map((command) => command.name());
    expect([...names, 'help'].sort()).toEqual([...SUBCOMMANDS].sort());
  });

  // commander runs these subcommands (not here: they prompt or write to the home directory)
  it.each([[['password']], [['--port', '9', 'password']], [['kernelspec', 'install', '--user']], [['help']]])(
    '%j: a subcommand, left to commander',
    (argv) => {
      expect(parseServeArgs(prepare(argv))).toBeUndefined();
    },
  );
});
