/**
 * What the one parser of the command line (commander's program, after run.ts rewrites aliases and
 * `--x=true|false`) hands to serve: the root and the options, or its exit code when it serves
 * nothing.
 */
import { describe, expect, it } from 'vitest';
import { expandAliases, normalizeBooleanArgs } from '../src/command-line-rewrites.js';
import { buildProgram } from '../src/program.js';

type Served = { root: string | undefined; options: Record<string, unknown> };

async function parse(argv: string[]): Promise<Served | { exitCode: number }> {
  let served: Served | undefined;
  const program = buildProgram(
    () => {},
    async (root, options) => {
      served = { root, options };
      return 0;
    },
  );
  program.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  try {
    await program.parseAsync(normalizeBooleanArgs(expandAliases(argv)), { from: 'user' });
  } catch (error) {
    return { exitCode: (error as { exitCode: number }).exitCode };
  }
  return served ?? { exitCode: 0 };
}

describe('the serve line', () => {
  it.each<[string[], Served]>([
    [[], { root: undefined, options: {} }],
    [
      ['notebooks', '--port', '9000', '--no-browser'],
      { root: 'notebooks', options: { port: 9000, openBrowser: false } },
    ],
    [['--port=9000', 'work', '--token='], { root: 'work', options: { port: 9000, token: '' } }],
    [['--browser', '--no-browser', '--browser'], { root: undefined, options: { openBrowser: true } }],
    [
      ['--allow-origin', 'a.example,b.example', '--allow-origin=c.example', '--allow-hidden=false'],
      { root: undefined, options: { allowOrigin: ['a.example', 'b.example', 'c.example'], allowHidden: false } },
    ],
    [
      ['--gateway-header', 'X-A=1', '--gateway-header=X-B=two'],
      { root: undefined, options: { gatewayHeaders: { 'X-A': '1', 'X-B': 'two' } } },
    ],
    [
      ['--kernel-pool', 'python3=1', '--kernel-pool=js=2'],
      { root: undefined, options: { kernelPools: { python3: 1, js: 2 } } },
    ],
    [
      ['--max-body-size', '512M', '--port', '0', '--port', '8'],
      { root: undefined, options: { maxBodySize: 512 * 1024 ** 2, port: 8 } },
    ],
    [
      ['--debug', '--SingleUserNotebookApp.default_url=/tree', '--collaboration=yes', 'dir with spaces'],
      { root: 'dir with spaces', options: { logLevel: 'debug', defaultUrl: '/tree', collaboration: true } },
    ],
    [['--', '-dir'], { root: '-dir', options: {} }],
  ])('%j', async (argv, served) => {
    expect(await parse(argv)).toEqual(served);
  });
});

describe('lines that serve nothing', () => {
  it.each([
    [['--help'], 0],
    [['-h'], 0],
    [['--version'], 0],
    [['-V'], 0],
    [['--unknown-flag'], 1],
    [['--port'], 1],
    [['--port', 'ninety'], 1],
    [['--port=70000'], 1],
    [['--kernel-pool=python3=many'], 1],
    [['a', 'b'], 1],
    [['-x'], 1],
    [['--Port=1'], 1],
  ])('%j: exit code %d', async (argv, exitCode) => {
    expect(await parse(argv)).toEqual({ exitCode });
  });

  it('subcommands are commands, not a root', () => {
    const names = buildProgram(() => {}).commands.map((command) => command.name());
    expect(names.sort()).toEqual(['kernelspec', 'password']);
  });
});
