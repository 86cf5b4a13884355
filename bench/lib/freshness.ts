import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './workspace.js';

/**
 * Compiled output is measured only when it is current: returns why `builtFile` cannot be used
 * (missing, or a `.ts` file under `packages/<pkg>/src` is newer than that package's last
 * `tsc -b`, whose tsbuildinfo it touches even when the emitted JS did not change), or undefined.
 */
export function staleBuildProblem(builtFile: string, packages: string[]): string | undefined {
  if (!existsSync(builtFile)) return `${relative(REPO_ROOT, builtFile)} does not exist (pnpm build)`;
  for (const pkg of packages) {
    const src = join(REPO_ROOT, 'packages', pkg, 'src');
    const buildInfo = join(REPO_ROOT, 'packages', pkg, 'tsconfig.tsbuildinfo');
    if (!existsSync(src)) continue;
    if (!existsSync(buildInfo)) return `packages/${pkg} has not been built (npx tsc -b)`;
    const built = statSync(buildInfo).mtimeMs;
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (file.endsWith('.ts') && statSync(join(src, file)).mtimeMs > built) {
        return `packages/${pkg}/src/${file} changed after the last build (npx tsc -b)`;
      }
    }
  }
  return undefined;
}
