// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from '../../../testing/token.js';
import { type Harness, login, notebookJson, recordSockets, startHarness } from './harness.js';

/**
 * A notebook page that closes while a cell runs leaves its session to the next page of the
 * notebook, which gets the server's replay of what arrived meanwhile (resume.ts, docs/kernels.md).
 */

let h: Harness;

const LONG_CODE = "import time\nfor i in range(6): print(i, flush=True); time.sleep(0.5)\n'done'";
/**
 * As LONG_CODE, but after line 0 it waits for a file `go` in the notebook's folder: the test
 * closes the page first, so no later line is on the wire while the page closes (one sent over a
 * closing socket is lost to both: Jupyter's protocol has no acknowledgements).
 */
const GATED_CODE =
  "import os, time\nprint(0, flush=True)\nwhile not os.path.exists('go'): time.sleep(0.05)\nfor i in range(1, 6): print(i, flush=True); time.sleep(0.5)\n'done'";
const KERNELSPEC = { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } };

function codeCell(id: string, source: string): Record<string, unknown> {
  return { id, cell_type: 'code', metadata: {}, source, execution_count: null, outputs: [] };
}

async function rest<T>(route: string): Promise<T> {
  const response = await fetch(`${h.url}${route}`, { headers: { Authorization: `token ${TOKEN}` } });
  if (!response.ok) throw new Error(`${route}: ${response.status}`);
  return (await response.json()) as T;
}

async function kernelIdOf(notebook: string): Promise<string> {
  const sessions = await rest<{ path: string; kernel: { id: string } }[]>('api/sessions');
  const session = sessions.find((s) => s.path === notebook);
  if (!session) throw new Error(`no session for ${notebook}`);
  return session.kernel.id;
}

async function waitKernelIdle(kernelId: string): Promise<void> {
  await expect
    .poll(async () => (await rest<{ execution_state: string }>(`api/kernels/${kernelId}`)).execution_state, {
      timeout: 30_000,
      interval: 200,
    })
    .toBe('idle');
}

async function openNotebook(name: string): Promise<Page> {
  const page = await h.newPage();
  await page.goto(`${h.url}notebooks/${name}`);
  await page.waitForSelector('body[data-ready]');
  return page;
}

/** The `session_id` of every kernel WebSocket the page opened (recorded by the init script). */
async function socketSessions(page: Page): Promise<string[]> {
  const urls = await page.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets.map((s) => s.url));
  return urls.map((u) => new URL(u).searchParams.get('session_id') ?? '');
}

async function resumeEntries(page: Page): Promise<{ session: string; released: boolean; requests: unknown[] }[]> {
  return page.evaluate(() => {
    const out: { session: string; released: boolean; requests: unknown[] }[] = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i) ?? '';
      if (key.startsWith('nbserve.resume:')) out.push(...JSON.parse(localStorage.getItem(key) ?? '{}').entries);
    }
    return out;
  });
}

async function runCell(page: Page, cell: Locator): Promise<void> {
  await cell.locator('.input-area').click();
  await page.keyboard.press('Control+Enter');
  await expect.poll(() => cell.locator('.input-prompt').textContent()).toBe('In [*]:');
}

async function waitFinished(cell: Locator, timeout = 30_000): Promise<void> {
  await expect.poll(async () => (await cell.getAttribute('class'))?.includes('running'), { timeout }).toBe(false);
  await expect.poll(() => cell.locator('.input-prompt').textContent(), { timeout }).toMatch(/^In \[\d+\]:$/);
}

// Resuming is how a page keeps a closed page's running cells when the server shares no document
// (`--no-collaboration`); with collaboration the server owns the outputs (notebook-collab.test.ts).
beforeAll(async () => {
  h = await startHarness({ collaboration: false });
  await recordSockets(h.context);
  const login_ = await h.newPage();
  await login(login_, h.url);
  await login_.close();
});

afterAll(async () => {
  await h?.close();
});

describe('a closed notebook page leaves its running cells to the next one', () => {
  it('replays what a cell printed while no page was open into the same cell, nothing twice', async () => {
    await fs.writeFile(
      path.join(h.root, 'resume.ipynb'),
      notebookJson(
        [{ id: 'intro', cell_type: 'markdown', metadata: {}, source: '# Resume' }, codeCell('long-run', GATED_CODE)],
        KERNELSPEC,
      ),
    );
    const first = await openNotebook('resume.ipynb');
    await first.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    const cell = first.locator('.notebook-cells > .cell').nth(1);
    await runCell(first, cell);
    await expect.poll(() => cell.locator('.output-stream').textContent(), { timeout: 15_000 }).toMatch(/^0\n/);
    const session = (await socketSessions(first))[0];
    const kernelId = await kernelIdOf('resume.ipynb');
    await first.close();

    // Closing ran pagehide: the page released its session, with the request it waited on.
    const other = await h.newPage();
    await other.goto(`${h.url}tree`);
    const entries = await resumeEntries(other);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ session, released: true, requests: [{ cellId: 'long-run' }] });
    await other.close();
    await fs.writeFile(path.join(h.root, 'go'), '');

    await waitKernelIdle(kernelId);
    // The closing page's last autosave holds what it had (line 0); the rest came while it was gone.
    const onDisk = JSON.parse(await fs.readFile(path.join(h.root, 'resume.ipynb'), 'utf8'));
    const savedText = (onDisk.cells[1].outputs[0]?.text ?? []).join('');
    expect(savedText.startsWith('0\n')).toBe(true);
    expect(savedText).not.toContain('5');

    const second = await openNotebook('resume.ipynb');
    const again = second.locator('.notebook-cells > .cell').nth(1);
    // It takes the closed page's session (so the server replays into it), then connects.
    await expect.poll(() => socketSessions(second), { timeout: 15_000 }).toEqual([session]);
    await waitFinished(again);
    expect(await again.locator('.input-prompt').textContent()).toBe('In [1]:');
    expect(await again.locator('.output-stream').count()).toBe(1);
    expect(await again.locator('.output-stream pre').textContent()).toBe('0\n1\n2\n3\n4\n5\n');
    expect(await again.locator('.output-execute_result').count()).toBe(1);
    expect(await again.locator('.output-execute_result').textContent()).toBe("Out[1]:'done'");
    expect(await again.locator('.output').count()).toBe(2);
    await second.waitForSelector('.kernel-status[data-status=idle]');
    expect(await resumeEntries(second)).toEqual([]);
    expect(await second.locator('.save-state').getAttribute('data-state')).toBe('dirty');
    await second.close();
  });

  it('a page opened while the cell still runs shows In [*] and a busy kernel, then the end', async () => {
    await fs.writeFile(
      path.join(h.root, 'running.ipynb'),
      notebookJson([codeCell('still-running', LONG_CODE.replace('0.5', '1'))], KERNELSPEC),
    );
    const first = await openNotebook('running.ipynb');
    await first.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    const cell = first.locator('.notebook-cells > .cell').first();
    await runCell(first, cell);
    await expect.poll(() => cell.locator('.output-stream').textContent(), { timeout: 15_000 }).toMatch(/^0\n/);
    await first.close();

    const second = await openNotebook('running.ipynb');
    const again = second.locator('.notebook-cells > .cell').first();
    await expect.poll(() => again.locator('.input-prompt').textContent(), { timeout: 10_000 }).toBe('In [*]:');
    // The kernel answers nothing until the cell ends; the page takes its state from the server.
    await second.waitForSelector('.kernel-status[data-status=busy]', { timeout: 5000 });
    await waitFinished(again);
    expect(await again.locator('.input-prompt').textContent()).toBe('In [1]:');
    expect(await again.locator('.output-stream pre').textContent()).toBe('0\n1\n2\n3\n4\n5\n');
    expect(await again.locator('.output-execute_result').textContent()).toBe("Out[1]:'done'");
    await second.waitForSelector('.kernel-status[data-status=idle]');
    await second.close();
  });

  it('a crashed page (no pagehide) is taken over too: nobody holds its session lock', async () => {
    await fs.writeFile(
      path.join(h.root, 'crash.ipynb'),
      notebookJson(
        [
          {
            ...codeCell('crashing', LONG_CODE),
            execution_count: 9,
            outputs: [{ output_type: 'stream', name: 'stdout', text: ['stale\n'] }],
          },
        ],
        KERNELSPEC,
      ),
    );
    const first = await openNotebook('crash.ipynb');
    await first.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    const cell = first.locator('.notebook-cells > .cell').first();
    await runCell(first, cell);
    await expect.poll(() => cell.locator('.output-stream').textContent(), { timeout: 15_000 }).toMatch(/^0\n/);
    const [session] = await socketSessions(first);
    const kernelId = await kernelIdOf('crash.ipynb');
    const cdp = await h.context.newCDPSession(first);
    const crashed = first.waitForEvent('crash');
    void cdp.send('Page.crash').catch(() => undefined); // never answers: the renderer is gone
    await crashed;
    await first.close();
    await waitKernelIdle(kernelId);

    const second = await openNotebook('crash.ipynb');
    const again = second.locator('.notebook-cells > .cell').first();
    await expect.poll(() => socketSessions(second), { timeout: 15_000 }).toEqual([session]);
    await waitFinished(again);
    // The file's outputs were from an earlier run (no save since): dropped, not mixed in. What
    // the crashed page had received is lost; everything after is there, once.
    const text = (await again.locator('.output-stream pre').textContent()) ?? '';
    expect(text).not.toContain('stale');
    expect('0\n1\n2\n3\n4\n5\n'.endsWith(text)).toBe(true);
    expect(text.endsWith('3\n4\n5\n')).toBe(true);
    expect(await again.locator('.input-prompt').textContent()).toBe('In [1]:');
    expect(await again.locator('.output-execute_result').textContent()).toBe("Out[1]:'done'");
    await second.close();
  });

  it('two pages open at the same time keep their own sessions', async () => {
    await fs.writeFile(
      path.join(h.root, 'tabs.ipynb'),
      // It runs until the test says so (a sleep could end before B is open on a loaded machine).
      notebookJson(
        [codeCell('slow', "import os, time\nwhile not os.path.exists('tabs-go'): time.sleep(0.05)\nprint('slept')")],
        KERNELSPEC,
      ),
    );
    const a = await openNotebook('tabs.ipynb');
    await a.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    const cellA = a.locator('.notebook-cells > .cell').first();
    await runCell(a, cellA);
    const [sessionA] = await socketSessions(a);
    // While it runs, A's entry is stored (a crash must not lose it), but A is alive.
    await expect.poll(async () => (await resumeEntries(a)).map((e) => e.session)).toEqual([sessionA]);

    const b = await openNotebook('tabs.ipynb');
    await b.waitForSelector('.kernel-status:not([data-status=connecting]):not([data-status=starting])');
    const sessionsB = await socketSessions(b);
    expect(sessionsB).toHaveLength(1);
    expect(sessionsB[0]).not.toBe(sessionA);
    // B did not take A's cell, and A's entry is still A's.
    const cellB = b.locator('.notebook-cells > .cell').first();
    expect(await cellB.locator('.input-prompt').textContent()).toBe('In [ ]:');
    expect((await resumeEntries(b)).map((e) => e.session)).toEqual([sessionA]);

    // A finishes on its own socket, never replaced by B's.
    await fs.writeFile(path.join(h.root, 'tabs-go'), '');
    await waitFinished(cellA);
    expect(await cellA.locator('.output-stream pre').textContent()).toBe('slept\n');
    expect(await socketSessions(a)).toEqual([sessionA]);
    expect(await a.evaluate(() => (window as unknown as { __sockets: WebSocket[] }).__sockets[0]?.readyState)).toBe(
      1, // OPEN
    );
    expect(await resumeEntries(a)).toEqual([]);
    expect(await b.locator('.kernel-status').getAttribute('data-status')).toBe('idle');
    await a.close();
    await b.close();
  });

  it('past the server buffer age (--kernel-buffer-max-age 1): the cell keeps what the file has, stops running', async () => {
    const short = await startHarness({ kernelBufferMaxAge: 1, collaboration: false });
    try {
      await recordSockets(short.context);
      const page = await short.newPage();
      await login(page, short.url);
      await fs.writeFile(path.join(short.root, 'late.ipynb'), notebookJson([codeCell('late', LONG_CODE)], KERNELSPEC));
      await page.goto(`${short.url}notebooks/late.ipynb`);
      await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
      const cell = page.locator('.notebook-cells > .cell').first();
      await runCell(page, cell);
      await expect.poll(() => cell.locator('.output-stream').textContent(), { timeout: 15_000 }).toMatch(/^0\n/);
      const [session] = await socketSessions(page);
      await page.close();
      const sessions = await (
        await fetch(`${short.url}api/sessions`, { headers: { Authorization: `token ${TOKEN}` } })
      ).json();
      const kernelId = (sessions as { kernel: { id: string } }[])[0]?.kernel.id;
      await expect
        .poll(
          async () =>
            (
              await (
                await fetch(`${short.url}api/kernels/${kernelId}`, { headers: { Authorization: `token ${TOKEN}` } })
              ).json()
            ).execution_state,
          { timeout: 30_000, interval: 200 },
        )
        .toBe('idle');

      const again = await short.newPage();
      await again.goto(`${short.url}notebooks/late.ipynb`);
      const late = again.locator('.notebook-cells > .cell').first();
      await expect.poll(() => socketSessions(again), { timeout: 15_000 }).toEqual([session]);
      await waitFinished(late, 15_000);
      // Only the closing page's last save: line 0. The rest was forgotten by the server.
      expect(await late.locator('.output-stream pre').textContent()).toBe('0\n');
      expect(await late.locator('.output-execute_result').count()).toBe(0);
      expect(await late.locator('.input-prompt').textContent()).toBe('In [1]:');
      await again.waitForSelector('.kernel-status[data-status=idle]');
    } finally {
      await short.close();
    }
  });

  it('a session the server no longer knows: the page marks the left cells as not running', async () => {
    await fs.writeFile(
      path.join(h.root, 'expired.ipynb'),
      notebookJson([{ ...codeCell('gone', 'print(1)'), execution_count: 7 }], KERNELSPEC),
    );
    const a = await openNotebook('expired.ipynb');
    await a.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    const kernelId = await kernelIdOf('expired.ipynb');
    // What a page closed long ago leaves: a session the server forgot, a request never answered.
    await a.evaluate(
      ({ kernelId }) => {
        const key = `nbserve.resume:${new URL('/', location.origin).href}|${kernelId}`;
        const entry = {
          session: 'forgotten0session0id0000000000000',
          savedAt: Date.now() - 1000,
          released: true,
          requests: [{ msgId: 'lost-request', cellId: 'gone', index: 0, count: 7, saved: true }],
        };
        localStorage.setItem(key, JSON.stringify({ v: 1, entries: [entry] }));
      },
      { kernelId },
    );
    await a.close();

    const b = await openNotebook('expired.ipynb');
    const cell = b.locator('.notebook-cells > .cell').first();
    await expect.poll(() => socketSessions(b), { timeout: 15_000 }).toEqual(['forgotten0session0id0000000000000']);
    await waitFinished(cell, 15_000);
    expect(await cell.locator('.input-prompt').textContent()).toBe('In [7]:');
    expect(await resumeEntries(b)).toEqual([]);
    await b.waitForSelector('.kernel-status[data-status=idle]');
    await b.close();
    expect(h.pageErrors).toEqual([]);
  });
});
