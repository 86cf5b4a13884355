/**
 * The unit lane's setup file: no kernel, browser, jupyter_server or JupyterHub may start, neither
 * from the test's process nor from a Node program it starts (the nbserve CLI, a script). Such a
 * start fails the file with the line to add; see testing/lanes/needs.ts.
 */
import childProcess from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { makeTempDirSync } from '../temp.js';
import { guardChildProcess } from './refused.mjs';

const refused: string[] = [];
guardChildProcess(childProcess, (need, commandLine) => refused.push(`${need}: ${commandLine}`));
syncBuiltinESMExports();

// The Node programs this file's tests start load the same guard, and write down what they refused.
const dir = makeTempDirSync('nbserve-unit-lane-');
const record = `${dir}/refused`;
const childGuard = fileURLToPath(new URL('./child-guard.mjs', import.meta.url));
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${childGuard}`.trim();
process.env.NBSERVE_UNIT_LANE_REFUSED = record;

afterAll(() => {
  let inChildren = '';
  try {
    inChildren = readFileSync(record, 'utf8');
  } catch {
    // nothing refused
  }
  rmSync(dir, { recursive: true, force: true });
  const all = [...refused, ...inChildren.split('\n').filter(Boolean)];
  if (all.length > 0)
    throw new Error(`This file starts what the unit lane runs without; mark it "// needs: …":\n${all.join('\n')}`);
});
