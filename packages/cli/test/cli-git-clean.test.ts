// needs: kernel
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isolated, runCli, useCliDirs } from '../../../testing/cli.js';
import { REPO } from '../../../testing/repo.js';
import { TOKEN } from '../../../testing/token.js';

const run = promisify(execFile);
const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=nbserve test', '-c', 'user.email=test@example.invalid', ...args], { cwd });

const notebook = {
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  cells: [{ cell_type: 'code', id: 'c1', metadata: {}, execution_count: null, outputs: [], source: '1 + 1' }],
};

const dirs = useCliDirs();

describe('serving notebooks inside a git checkout with this repository’s .gitignore', () => {
  it('leaves git status clean after a save, a checkpoint and a kernel session', async () => {
    // like `bash scripts/start.sh`, which serves the tracked examples/notebooks
    const checkout = dirs.root;
    await git(checkout, 'init', '-q');
    await fs.copyFile(path.join(REPO, '.gitignore'), path.join(checkout, '.gitignore'));
    await fs.mkdir(path.join(checkout, 'sub'));

    const cli = runCli([checkout, ...isolated(dirs), `--token=${TOKEN}`]);
    const base = (await cli.url).split('?')[0];
    const api = (route: string, init: RequestInit = {}) =>
      fetch(`${base}api/${route}`, {
        ...init,
        headers: { Authorization: `token ${TOKEN}`, 'Content-Type': 'application/json' },
      });
    const save = async (file: string) => {
      const response = await api(`contents/${file}`, {
        method: 'PUT',
        body: JSON.stringify({ type: 'notebook', content: notebook }),
      });
      expect(response.status).toBeLessThan(300);
    };
    // notebooks as Jupyter writes them, committed
    const files = ['Welcome.ipynb', 'sub/Other.ipynb'];
    for (const file of files) await save(file);
    await git(checkout, 'add', '.gitignore', ...files);
    await git(checkout, 'commit', '-qm', 'notebooks');

    for (const file of files) {
      // what the notebook page does on Ctrl-S: save, then checkpoint
      await save(file);
      expect((await api(`contents/${file}/checkpoints`, { method: 'POST' })).status).toBe(201);
    }
    const session = await api('sessions', {
      method: 'POST',
      body: JSON.stringify({ path: 'sub/Other.ipynb', type: 'notebook', name: '', kernel: { name: 'python3' } }),
    });
    expect(session.status).toBe(201);
    const { id } = (await session.json()) as { id: string };
    expect((await api(`sessions/${id}`, { method: 'DELETE' })).status).toBe(204);
    cli.child.kill('SIGTERM');
    expect((await cli.exit).code).toBe(0);

    const { stdout } = await run('git', ['status', '--porcelain'], { cwd: checkout });
    expect(stdout).toBe('');
    // the checkpoints exist, and git ignores them
    await expect(fs.stat(path.join(checkout, 'sub', '.ipynb_checkpoints'))).resolves.toBeTruthy();
  });
});
