import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO } from '../testing/repo.js';

const run = promisify(execFile);

/** Generated or not meant for readers. */
const SKIPPED = new Set(['pnpm-lock.yaml']);

/**
 * Citations of notes that live outside the repository: numbered sections of a "reference", absolute
 * paths of a development machine. Readers of the product have none of them.
 */
const OUTSIDE_CITATIONS: readonly RegExp[] = [
  /\/work\/(shared|main)\b/,
  /\b(reference|rest-api|legacy-routes|kernel-protocol)\b[^\n]{0,30}\u00a7/,
];

/** A relative path up to a `shared` folder: fine for one in the repository, wrong for one beside it. */
const SHARED_FOLDER = /(?:\.\.\/)+shared\b/g;

/** The repository's tracked files (git ls-files), as repository-relative paths. */
async function trackedFiles(): Promise<string[]> {
  const { stdout } = await run('git', ['ls-files', '-z'], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
  return stdout.split('\0').filter((f) => f !== '');
}

/** The text of a tracked file, or undefined for binary files and files deleted in the work tree. */
async function readText(file: string): Promise<string | undefined> {
  const bytes = await fs.readFile(path.join(REPO, file)).catch(() => undefined);
  if (!bytes || bytes.subarray(0, 8000).includes(0)) return undefined;
  return bytes.toString('utf8');
}

/** Every outside citation in `file`'s `text`, as `line: match`. */
function outsideCitations(file: string, text: string, exists: (relative: string) => boolean): string[] {
  const found: string[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    for (const pattern of OUTSIDE_CITATIONS) {
      const match = pattern.exec(line);
      if (match) found.push(`${i + 1}: ${match[0]}`);
    }
    for (const [relative] of line.matchAll(SHARED_FOLDER)) {
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), relative));
      if (resolved.startsWith('../') || !exists(resolved)) found.push(`${i + 1}: ${relative}`);
    }
  }
  return found;
}

/** The targets of Markdown links and images (inline and reference-style), outside code. */
function markdownLinkTargets(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
  const targets: string[] = [];
  for (const [, target] of prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(target ?? '');
  for (const [, target] of prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm))
    targets.push(target ?? '');
  return targets;
}

/**
 * What is wrong with a link from `file` to `target`: it leaves the repository, or names a file
 * that is not in it. URLs with a scheme and in-page anchors are not checked.
 */
function linkProblem(file: string, target: string, exists: (relative: string) => boolean): string | undefined {
  if (target === '' || target.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const raw = target.replace(/[?#].*$/, '');
  let pathPart = raw;
  try {
    pathPart = decodeURIComponent(raw);
  } catch {
    // a stray `%` is part of the name
  }
  const resolved = path.posix.normalize(
    pathPart.startsWith('/') ? pathPart.slice(1) : path.posix.join(path.posix.dirname(file), pathPart),
  );
  if (resolved === '..' || resolved.startsWith('../')) return `${target} leaves the repository`;
  if (!exists(resolved.replace(/\/$/, ''))) return `${target} does not exist in the repository`;
  return undefined;
}

/**
 * A tracker's issue number in prose ("issue 16", "issues #3 and 4"): readers of the docs cannot
 * see the tracker, so upstream threads are linked by URL instead (`…/issues/123` is fine).
 */
const ISSUE_NUMBER = /\bissues?\s+#?\d+/gi;
/** Numbered bench runs in docs/benchmarks.md: a reference keeps the latest table; history is in git. */
const NUMBERED_RUN = /\bruns?\s+\d+/gi;
const MAX_NUMBERED_RUNS = 5;

/** The user-facing docs: README.md, CONTRIBUTING.md and docs/. */
function isUserDoc(file: string): boolean {
  return file === 'README.md' || file === 'CONTRIBUTING.md' || (file.startsWith('docs/') && file.endsWith('.md'));
}

describe('links and citations in tracked files', () => {
  it('point at nothing outside the repository and at no missing file', async () => {
    const files = (await trackedFiles()).filter((f) => !SKIPPED.has(path.posix.basename(f)));
    expect(files).toContain('README.md');
    const known = new Set(files);
    for (const file of files) {
      for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) known.add(dir);
    }
    known.add('.');
    const offenders: string[] = [];
    for (const file of files) {
      const text = await readText(file);
      if (text === undefined) continue;
      for (const hit of outsideCitations(file, text, (f) => known.has(f))) offenders.push(`${file}:${hit}`);
      if (!file.endsWith('.md')) continue;
      for (const target of markdownLinkTargets(text)) {
        const problem = linkProblem(file, target, (f) => known.has(f));
        if (problem) offenders.push(`${file}: ${problem}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('name no issue numbers in the docs, and benchmarks.md is a reference, not a log of runs', async () => {
    const offenders: string[] = [];
    for (const file of (await trackedFiles()).filter(isUserDoc)) {
      const text = (await readText(file)) ?? '';
      for (const [hit] of text.matchAll(ISSUE_NUMBER)) offenders.push(`${file}: "${hit}"`);
    }
    expect(offenders).toEqual([]);
    const runs = (await readText('docs/benchmarks.md'))?.match(NUMBERED_RUN) ?? [];
    expect(runs.length).toBeLessThanOrEqual(MAX_NUMBERED_RUNS);
    expect('see issue 16 and issues #3; https://github.com/a/b/issues/123'.match(ISSUE_NUMBER)).toEqual([
      'issue 16',
      'issues #3',
    ]);
    expect('runs 13 and 14, run 5, a run of 20'.match(NUMBERED_RUN)).toEqual(['runs 13', 'run 5']);
  });

  it('finds what the check above looks for', () => {
    const dotdot = '..';
    const none = () => false;
    expect(
      outsideCitations('docs/a.md', `ok\nsee ${dotdot}/shared/reference/x.md\nRFC 9110 \u00a714.1.2`, none),
    ).toEqual([`2: ${dotdot}/shared`]);
    const webShared = (f: string) => f === 'packages/web/src/shared';
    expect(outsideCitations('packages/web/src/server/a.ts', `from '${dotdot}/shared/escape.js'`, webShared)).toEqual(
      [],
    );
    expect(outsideCitations('a.ts', `'${dotdot}/shared/x'`, () => true)).toEqual([`1: ${dotdot}/shared`]);
    expect(outsideCitations('a.ts', '/** `/api/kernels` (reference \u00a74). */', none)).toHaveLength(1);
    expect(outsideCitations('a.ts', '(reference legacy-routes \u00a72.1)', none)).toHaveLength(1);
    expect(outsideCitations('a.ts', `see /work/${'shared'}/design.md`, none)).toHaveLength(1);
    expect(outsideCitations('a.ts', "tree/work/notes.txt and jupyter_server's REST API", none)).toEqual([]);

    const markdown = [
      '[a](docs/kernels.md#pieces) ![b](docs/screenshots/dashboard.png "Dashboard") [c](https://jupyter.org)',
      `[d](${dotdot}/${dotdot}/outside.md) [e](#local) [f](missing.md)`,
      '`[g](inside-code.md)`',
      '```',
      '[h](in-a-fence.md)',
      '```',
      `[i]: ${dotdot}/notes.md`,
    ].join('\n');
    const targets = markdownLinkTargets(markdown);
    expect(targets).toEqual([
      'docs/kernels.md#pieces',
      'docs/screenshots/dashboard.png',
      'https://jupyter.org',
      `${dotdot}/${dotdot}/outside.md`,
      '#local',
      'missing.md',
      `${dotdot}/notes.md`,
    ]);
    const exists = (f: string) => ['docs/kernels.md', 'docs/screenshots/dashboard.png', 'docs'].includes(f);
    expect(targets.map((t) => linkProblem('README.md', t, exists))).toEqual([
      undefined,
      undefined,
      undefined,
      `${dotdot}/${dotdot}/outside.md leaves the repository`,
      undefined,
      'missing.md does not exist in the repository',
      `${dotdot}/notes.md leaves the repository`,
    ]);
    expect(linkProblem('docs/kernels.md', `${dotdot}/README.md`, (f) => f === 'README.md')).toBeUndefined();
    expect(linkProblem('docs/kernels.md', `${dotdot}/${dotdot}/shared/x.md`, () => true)).toBe(
      `${dotdot}/${dotdot}/shared/x.md leaves the repository`,
    );
  });
});
