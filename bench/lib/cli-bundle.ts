import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './workspace.js';

/** The shipped `nbserve` bin: one esbuild bundle (`pnpm build`), what an npm install runs. */
export const CLI_BUNDLE = join(REPO_ROOT, 'packages/cli/dist/nbserve.js');

/** Every package whose sources end up in the bundle or in the run-time files beside it. */
const BUNDLED_PACKAGES = ['core', 'http', 'web', 'kernel-js', 'cli'];

/** The first source file newer than the bundle, or undefined when the bundle is current. */
function newerSource(builtMs: number): string | undefined {
  for (const pkg of BUNDLED_PACKAGES) {
    const src = join(REPO_ROOT, 'packages', pkg, 'src');
    if (!existsSync(src)) continue;
    for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
      if (/\.(ts|css)$/.test(file) && statSync(join(src, file)).mtimeMs > builtMs) return `packages/${pkg}/src/${file}`;
    }
  }
  return undefined;
}

/**
 * Makes sure the bundle is current, rebuilding it when missing or older than a source (the
 * web UI bundle, the kernel bundle, then the CLI bundle: a few seconds, no `tsc`). Returns why it
 * could not be built, or undefined when it is ready.
 */
export function ensureCliBundle(log: (line: string) => void): string | undefined {
  const stale = existsSync(CLI_BUNDLE) ? newerSource(statSync(CLI_BUNDLE).mtimeMs) : 'it does not exist';
  if (!stale) return undefined;
  log(`building the CLI bundle (${stale.startsWith('packages/') ? `${stale} changed` : stale})`);
  const steps: [string, string[]][] = [
    ['packages/web', ['--import', 'tsx', 'src/bundle/write-bundle.ts']],
    ['packages/kernel-js', ['scripts/bundle-kernel.mjs', 'dist/kernel']],
    ['packages/cli', ['scripts/bundle-cli.mjs']],
  ];
  try {
    for (const [dir, args] of steps) execFileSync(process.execPath, args, { cwd: join(REPO_ROOT, dir), stdio: 'pipe' });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return `building packages/cli/dist/nbserve.js failed: ${stderr || String(error)}`;
  }
  return undefined;
}

/** The note on a row measuring nbserve: the shipped bin, or the sources when the bundle failed. */
export function nbserveBinNote(bundleProblem: string | undefined): string {
  return bundleProblem
    ? 'nbserve from TypeScript source through tsx (the bundle could not be built)'
    : 'nbserve: the shipped bin, `node packages/cli/dist/nbserve.js` (one esbuild bundle)';
}
