// needs: kernel, browser
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../../../testing/repo.js';
import { makeTempDir } from '../../../testing/temp.js';

const run = promisify(execFile);
const DOCS = path.join(REPO, 'docs', 'screenshots');

/** Width and height from a PNG's IHDR chunk. */
function pngSize(data: Buffer): { width: number; height: number } {
  expect(data.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(data.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

async function digests(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await fs.readdir(dir)) {
    out[name] = createHash('sha256')
      .update(await fs.readFile(path.join(dir, name)))
      .digest('hex');
  }
  return out;
}

let out: string;
beforeAll(async () => {
  out = await makeTempDir('nbserve-screenshots-test-');
});
afterAll(async () => {
  await fs.rm(out, { recursive: true, force: true });
});

describe('pnpm screenshots', () => {
  it("writes the README's screenshots, from a real server, Chromium and python3 kernel, where it is told", async () => {
    const before = await digests(DOCS);
    const target = path.join(out, 'shots');
    const { stdout } = await run('pnpm', ['--silent', 'screenshots', target], { cwd: REPO, timeout: 180_000 });
    expect(stdout).toContain('dashboard.png');
    expect((await fs.readdir(target)).sort()).toEqual([
      'dashboard.png',
      'notebook-dark.png',
      'notebook.png',
      'widgets.png',
    ]);
    expect(pngSize(await fs.readFile(path.join(target, 'widgets.png')))).toEqual({ width: 1280, height: 520 });
    expect(pngSize(await fs.readFile(path.join(target, 'dashboard.png')))).toEqual({ width: 1280, height: 860 });
    const notebook = await fs.readFile(path.join(target, 'notebook.png'));
    expect(pngSize(notebook)).toEqual({ width: 1280, height: 1500 });
    // outputs drawn (plot, math, traceback colours) make the page far from blank
    expect(notebook.length).toBeGreaterThan(100_000);
    const dark = await fs.readFile(path.join(target, 'notebook-dark.png'));
    expect(pngSize(dark)).toEqual({ width: 1280, height: 1500 });
    expect(dark.equals(notebook)).toBe(false);
    // the committed screenshots change only when someone runs the command for them
    expect(await digests(DOCS)).toEqual(before);
  }, 200_000);
});
