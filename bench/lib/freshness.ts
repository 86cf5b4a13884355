import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from './workspace.js';

/**
 * Compiled output is measured only when it is current: returns why `builtFile` cannot be used
 * (missing, or older than a `.ts` file under `packages/<pkg>/src`), or undefined when it can.
 */
export function staleBuildProblem(builtFile: string, packages: string[]): string | undefined {
  const shown = relative(REPO_ROOT, builtFile);
  if (!existsSync(builtFile)) return `${shown} does not exist (pnpm build)`;
  const built = statSync(builtFile).mtimeMs;
  for (const pkg of packages) {
    const src = join(REPO_ROOT, 'packages', pkg, 'src');
    if (!existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (file.endsWith('.ts') && statSync(join(src, file)).mtimeMs > built) {
        return `${shown} is older than packages/${pkg}/src/${file} (pnpm build)`;
      }
    }
  }
  return undefined;
}
