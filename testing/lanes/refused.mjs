// Plain JavaScript: the guard of the unit lane also runs in the Node programs a test starts
// (`node --import` through NODE_OPTIONS), which may run without a TypeScript loader.
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Which program the unit lane runs without (`kernel`, `browser`, `jupyter_server`,
 * `jupyterhub`) a command line starts, if any.
 * @param {string} command
 * @param {readonly string[]} argv
 * @returns {'kernel' | 'browser' | 'jupyter_server' | 'jupyterhub' | undefined}
 */
export function refusedProgram(command, argv) {
  const program = path.basename(command);
  const words = [program, ...argv];
  if (/chrom(e|ium)/.test(program)) return 'browser';
  if (words.some((w) => /(^|\/)jupyterhub$/.test(w))) return 'jupyterhub';
  if (words.some((w) => /jupyter_server|jupyter-server|notebook\.notebookapp|jupyter-notebook/.test(w)))
    return 'jupyter_server';
  // a kernel: ipykernel (also under ipcluster), or any kernelspec's argv given its connection file
  if (words.some((w) => /ipykernel|ipcluster|ipengine/.test(w))) return 'kernel';
  const f = argv.indexOf('-f');
  if (f >= 0 && /\.json$/.test(argv[f + 1] ?? '')) return 'kernel';
  return undefined;
}

/**
 * Replaces child_process's starters with ones that refuse those programs, calling `onRefused`
 * with what was refused before throwing.
 * @param {typeof import('node:child_process')} childProcess
 * @param {(need: string, commandLine: string) => void} onRefused
 */
export function guardChildProcess(childProcess, onRefused) {
  for (const name of /** @type {const} */ (['spawn', 'spawnSync', 'execFile', 'execFileSync'])) {
    const original = /** @type {Function & { [promisify.custom]?: Function }} */ (childProcess[name]);
    /** @param {unknown[]} args */
    const check = (args) => {
      const [command, argv] = args;
      const list = Array.isArray(argv) ? argv.map(String) : [];
      const need = refusedProgram(String(command), list);
      if (!need) return;
      onRefused(need, `${command} ${list.join(' ')}`.trim());
      throw new Error(`the unit lane starts no ${need}: add "// needs: ${need}" to this test file`);
    };
    /** @param {unknown[]} args */
    const guarded = function (...args) {
      check(args);
      // @ts-expect-error: `this` is child_process or undefined, as for the original
      return original.apply(this, args);
    };
    // `promisify(execFile)` resolves with { stdout, stderr } through the original's own version
    const custom = original[promisify.custom];
    if (custom)
      Object.defineProperty(guarded, promisify.custom, {
        /** @param {unknown[]} args */
        value: (...args) => {
          check(args);
          return custom(...args);
        },
      });
    Object.defineProperty(childProcess, name, { value: guarded, writable: true, configurable: true });
  }
}
