import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The two lanes of the test suite. A test file that needs a kernel, a browser, jupyter_server or
 * JupyterHub says so in a line of its own near its top:
 *
 *     // needs: kernel, browser
 *
 * `pnpm test:unit` runs the files without such a line; `pnpm test` runs all. The unit lane
 * refuses to start any of those programs (testing/lanes/unit-guard.ts), so a file that needs one
 * and lacks the line fails there, and test/code-shape.test.ts checks the line's words.
 */
export const NEEDS = ['kernel', 'browser', 'jupyter_server', 'jupyterhub'] as const;
export type Need = (typeof NEEDS)[number];

/** `// needs: a, b` within a file's first lines (a header comment may come first). */
const NEEDS_LINE = /^\/\/ needs: (.+)$/m;
const HEAD_CHARS = 3000;

/** What a test file says it needs (empty: it belongs to the unit lane); unknown words are kept for the check. */
export function needsOf(text: string): string[] {
  const line = NEEDS_LINE.exec(text.slice(0, HEAD_CHARS));
  return line ? (line[1] ?? '').split(',').map((word) => word.trim()) : [];
}

/** Every test file of the repository (relative paths), as vitest's `include` finds them. */
export function testFiles(repo: string): string[] {
  const found: string[] = [];
  const roots = [
    'test',
    ...readdirSync(path.join(repo, 'packages')).map((name) => path.join('packages', name, 'test')),
  ];
  for (const root of roots) {
    let entries: string[];
    try {
      entries = readdirSync(path.join(repo, root), { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const entry of entries) if (entry.endsWith('.test.ts')) found.push(path.join(root, entry));
  }
  return found.sort();
}

/** The test files that need one of NEEDS. */
export function integrationFiles(repo: string): string[] {
  return testFiles(repo).filter((file) => needsOf(readFileSync(path.join(repo, file), 'utf8')).length > 0);
}
