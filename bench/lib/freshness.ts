import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './workspace.js';

/**
 * Compiled output is measured only when it is current: returns why `builtFile` cannot be used
 * (missing, or some `packages/<pkg>/src/X.ts` is newer than its `dist/X.js`, i.e. `tsc -b` has
 * not run since), or undefined when it can.
 */
export function staleBuildProblem(builtFile: string, packages: string[]): string | undefined {
  if (!existsSync(builtFile)) return `${relative(REPO_ROOT, builtFile)} does not exist (pnpm build)`;
  for (const pkg of packages) {
    const src = join(REPO_ROOT, 'packages', pkg, 'src');
    if (!existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
      const out = join(REPO_ROOT, 'packages', pkg, 'dist', file.replace(/\.ts$/, '.js'));
      if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(src, file)).mtimeMs) {
        return `packages/${pkg}/dist is older than src/${file} (npx tsc -b)`;
      }
    }
  }
  return undefined;
}
