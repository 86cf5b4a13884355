/**
 * The unit lane's setup file: no kernel, browser, jupyter_server or JupyterHub may start, neither
 * from the test's process nor from a Node program it starts (the nbserve CLI, a script). Such a
 * start fails the file with the line to add; see testing/lanes/needs.ts.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { guardChildProcess } from './refused.mjs';

const refused: string[] = [];
guardChildProcess(childProcess, (need, commandLine) => refused.push(`${need}: ${commandLine}`));
syncBuiltinESMExports();

const childGuard = fileURLToPath(new URL('./child-guard.mjs', import.meta.url));
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${childGuard}`.trim();

afterAll(() => {
  if (refused.length > 0)
    throw new Error(`This file starts what the unit lane runs without; mark it "// needs: …":\n${refused.join('\n')}`);
});
