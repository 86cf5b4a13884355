import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './cli-helpers.js';

/** Split a file that grows past this by responsibility, not by arbitrary cuts. */
const MAX_LINES = 450;

/** Modules of ours written to run in a browser too: dependency-free, no Node APIs. */
const BROWSER_SAFE_MODULES = new Set(['@nbserve/core/html']);

/** Every file under `dir`, as paths relative to the repository. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(path.join(REPO, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(REPO, path.join(e.parentPath, e.name)))
    .sort();
}

async function sourceDirs(): Promise<string[]> {
  const packages = await fs.readdir(path.join(REPO, 'packages'), { withFileTypes: true });
  const dirs: string[] = [];
  for (const p of packages) {
    const src = path.join('packages', p.name, 'src');
    if (p.isDirectory() && (await fs.stat(path.join(REPO, src)).catch(() => undefined))?.isDirectory()) dirs.push(src);
  }
  return dirs;
}

/** The modules of @nbserve/* a source file imports or re-exports, and whether only as types. */
function ourImports(text: string): { from: string; typeOnly: boolean }[] {
  const found: { from: string; typeOnly: boolean }[] = [];
  // `import { type A }` is not enough: it may leave the module imported for its side effects.
  for (const [, clause, from] of text.matchAll(/^\s*(?:import|export)\b([^;]*?)from\s+['"](@nbserve\/[^'"]*)['"]/gm))
    found.push({ from: from ?? '', typeOnly: /^\s*type\b/.test(clause ?? '') });
  for (const [, from] of text.matchAll(/import\(\s*['"](@nbserve\/[^'"]*)['"]/g))
    found.push({ from: from ?? '', typeOnly: false });
  return found;
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('the shape of the code', () => {
  it(`keeps every file under packages/*/src at ${MAX_LINES} lines or fewer`, async () => {
    const dirs = await sourceDirs();
    expect(dirs).toEqual(expect.arrayContaining(['packages/core/src', 'packages/web/src']));
    const offenders: string[] = [];
    for (const dir of dirs) {
      for (const file of await filesUnder(dir)) {
        const lines = lineCount(await fs.readFile(path.join(REPO, file), 'utf8'));
        if (lines > MAX_LINES) offenders.push(`${file} (${lines} lines)`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('imports nothing of our other packages into the browser code but types and the HTML escaper', async () => {
    const values: string[] = [];
    for (const file of await filesUnder('packages/web/src/browser')) {
      const text = await fs.readFile(path.join(REPO, file), 'utf8');
      for (const { from, typeOnly } of ourImports(text))
        if (!typeOnly && !BROWSER_SAFE_MODULES.has(from)) values.push(`${file}: ${from}`);
    }
    expect(values).toEqual([]);
  });

  it('finds what the checks above look for', () => {
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    const text = "import type { A } from '@nbserve/core';\nimport {\n  type B,\n} from '@nbserve/core';\n";
    expect(ourImports(`${text}export type { C } from '@nbserve/http';\nawait import('@nbserve/core');`)).toEqual([
      { from: '@nbserve/core', typeOnly: true },
      { from: '@nbserve/core', typeOnly: false },
      { from: '@nbserve/http', typeOnly: true },
      { from: '@nbserve/core', typeOnly: false },
    ]);
  });
});
