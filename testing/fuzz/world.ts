import { promises as fs } from 'node:fs';
import path from 'node:path';

/** A small valid nbformat 4 notebook with a code cell and an output. */
export function notebookJson(source = 'print(1)'): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: 'javascript', display_name: 'JavaScript', language: 'javascript' } },
    cells: [
      {
        cell_type: 'code',
        id: 'c1',
        metadata: {},
        execution_count: 1,
        source,
        outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
      },
      { cell_type: 'markdown', id: 'm1', metadata: {}, source: '# title' },
    ],
  });
}

/** Names with markup that a file system allows (no `/`): they reach pages, headers and exports. */
export const MARKUP_NAMES = [`"><img src=x onerror=fz2()>`, `'onmouseover='fz3()'`, `x' autofocus onfocus='fz6()`];

/**
 * The files the fuzzer starts from, relative to the root. Symlinks point out of the root (into
 * the sentinel directory beside it), inside it, nowhere, and at themselves.
 */
const FILES: Record<string, string | Buffer> = {
  'notebook.ipynb': notebookJson(),
  'empty.txt': '',
  'text.txt': 'hello\n',
  'script.py': 'print("hi")\n',
  'page.html': '<p>static page</p>\n',
  'data.bin': Buffer.from([0, 1, 2, 0xfe, 0xff, 0xc0, 0xae]),
  'unicode-é漢字.txt': 'unicode\n',
  '.hidden.txt': 'hidden\n',
  'dir/inner.txt': 'inner\n',
  'dir/sub/deep.ipynb': notebookJson('1 + 1'),
  'dir with space/a b.txt': 'spaced\n',
  [`${MARKUP_NAMES[0]}.ipynb`]: notebookJson(),
  [`${MARKUP_NAMES[1]}.txt`]: 'markup name\n',
  [`${MARKUP_NAMES[2]}/x.ipynb`]: notebookJson(),
};

const LINKS: Record<string, string> = {
  'link-out': '../sentinel',
  'link-secret.txt': '../sentinel/secret.txt',
  'link-abs.txt': '', // filled with the absolute path of the sentinel's notebook
  'link-in': 'dir',
  'link-dangling.txt': 'nowhere/at/all.txt',
  'link-loop': 'link-loop',
};

/** Paths of the starting files (and links), as names the generators can use. */
export const WORLD_PATHS: readonly string[] = [...Object.keys(FILES), ...Object.keys(LINKS), 'dir', 'dir/sub'];

/** Lays out `root` from scratch and, beside it, the `sentinel` directory nothing may touch. */
export async function layOutWorld(dir: string, root: string): Promise<{ sentinel: string }> {
  const sentinel = path.join(dir, 'sentinel');
  await fs.mkdir(path.join(sentinel, 'sub'), { recursive: true });
  await fs.writeFile(path.join(sentinel, 'secret.txt'), 'secret outside the root\n');
  await fs.writeFile(path.join(sentinel, 'outside.ipynb'), notebookJson('"outside"'));
  await fs.writeFile(path.join(sentinel, 'sub', 'x.txt'), 'x\n');
  await resetRoot(root, sentinel);
  return { sentinel };
}

/** Puts the starting files back and removes whatever requests added (between requests). */
export async function resetRoot(root: string, sentinel: string): Promise<void> {
  for (const name of await fs.readdir(root)) await fs.rm(path.join(root, name), { recursive: true, force: true });
  for (const [rel, content] of Object.entries(FILES)) {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), content);
  }
  for (const [rel, target] of Object.entries(LINKS)) {
    await fs.symlink(target || path.join(sentinel, 'outside.ipynb'), path.join(root, rel));
  }
}
