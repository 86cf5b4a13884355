// needs: browser
/**
 * The terminal page in Chromium: New > Terminal from the dashboard, typing into xterm.js, and a
 * full-screen program (vi) drawn right at 80x24 and again after a resize, read back from xterm's
 * own buffer. The page's resize reaches the shell (`stty size`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from '../../../testing/token.js';
import { type Harness, login, startHarness } from './harness.js';

let h: Harness;
let page: Page;

/** xterm's screen as text: the visible rows of its active buffer. */
function screen(): Promise<{ rows: number; cols: number; lines: string[] }> {
  return page.evaluate(() => {
    const term = (
      window as unknown as {
        nbserveTerminal: {
          rows: number;
          cols: number;
          buffer: {
            active: { viewportY: number; getLine(y: number): { translateToString(trim: boolean): string } | undefined };
          };
        };
      }
    ).nbserveTerminal;
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < term.rows; y++)
      lines.push((buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '').trimEnd());
    return { rows: term.rows, cols: term.cols, lines };
  });
}

async function waitForScreen(test: (lines: string[]) => boolean, what: string, timeoutMs = 30_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { lines } = await screen();
    if (test(lines)) return lines;
    if (Date.now() > deadline) throw new Error(`${what}; the screen:\n${lines.join('\n')}`);
    await page.waitForTimeout(100);
  }
}

/** Types into the terminal as a person would (xterm's hidden textarea has the focus). */
async function type(text: string): Promise<void> {
  await page.locator('.xterm').click();
  await page.keyboard.type(text);
}

const resize = (cols: number, rows: number) =>
  page.evaluate(
    ([c, r]) =>
      (window as unknown as { nbserveTerminal: { resize(c: number, r: number): void } }).nbserveTerminal.resize(
        c as number,
        r as number,
      ),
    [cols, rows],
  );

beforeAll(async () => {
  h = await startHarness({ terminalShell: '/bin/sh' });
  await fs.writeFile(path.join(h.root, 'hello-from-root.txt'), 'hi');
  await fs.writeFile(path.join(h.root, 'poem.txt'), 'first line\nsecond line\nthird line\n');
  page = await h.newPage();
});

afterAll(async () => {
  await h?.close();
});

describe('the terminal page in Chromium', () => {
  it('New > Terminal opens a terminal page; `ls` lists the root', async () => {
    await login(page, h.url);
    await page.click('text=New ▾');
    await page.click('.menu-item:has-text("Terminal")');
    await page.waitForURL(`${h.url}terminals/1`);
    await page.locator('body[data-ready=true] .xterm').waitFor();
    await waitForScreen((lines) => lines.some((l) => /[$#]$/.test(l)), 'no prompt');
    await type('ls\n');
    await waitForScreen((lines) => lines.some((l) => l.includes('hello-from-root.txt')), 'no file of the root');
    // the page fitted xterm to the window and told the shell
    const { rows, cols } = await screen();
    await type('stty size\n');
    await waitForScreen((lines) => lines.some((l) => l.trim() === `${rows} ${cols}`), `no "${rows} ${cols}"`);
    expect(h.pageErrors).toEqual([]);
  });

  it('vi draws its screen at 80x24 and again after a resize: text on top, its status on the last row', async () => {
    await resize(80, 24);
    await type('stty size\n');
    await waitForScreen((lines) => lines.some((l) => l.trim() === '24 80'), 'the shell did not get 24x80');
    await type('vi -u NONE poem.txt\n');
    // Ctrl-G prints the file's status on the last row
    await waitForScreen((lines) => lines[0] === 'first line', 'vi did not draw the file');
    await page.keyboard.press('Control+g');
    const at80 = await waitForScreen((lines) => lines[23]?.includes('"poem.txt"') ?? false, 'no status on row 24');
    expect(at80).toHaveLength(24);
    expect(at80.slice(0, 3)).toEqual(['first line', 'second line', 'third line']);
    expect(
      at80.slice(3, 23).every((l) => l === '~'),
      at80.join('\n'),
    ).toBe(true);

    await resize(100, 30);
    await waitForScreen((lines) => lines.length === 30, 'xterm did not resize');
    await page.keyboard.press('Control+g');
    const at100 = await waitForScreen(
      (lines) => lines[29]?.includes('"poem.txt"') === true && lines.slice(3, 29).every((l) => l === '~'),
      'vi did not redraw for 30 rows',
    );
    expect(at100.slice(0, 3)).toEqual(['first line', 'second line', 'third line']);
    expect(at100.slice(0, 29).some((l) => l.includes('"poem.txt"'))).toBe(false);

    await type(':q\n');
    await type('stty size\n');
    await waitForScreen((lines) => lines.some((l) => l.trim() === '30 100'), 'the shell did not get 30x100');
    expect(h.pageErrors).toEqual([]);
  });

  it('pastes with Ctrl-V and copies the selection with Ctrl-Shift-C', async () => {
    await page.evaluate(() => navigator.clipboard.writeText('echo pasted-$((5+5))'));
    await page.locator('.xterm').click();
    await page.keyboard.press('Control+v');
    await page.keyboard.press('Enter');
    await waitForScreen((lines) => lines.includes('pasted-10'), 'the paste did not arrive');
    await page.evaluate(() => {
      const term = (window as unknown as { nbserveTerminal: { selectAll(): void } }).nbserveTerminal;
      term.selectAll();
    });
    await page.keyboard.press('Control+Shift+C');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toContain('pasted-10');
  });

  it('the Running tab lists the terminal and shuts it down', async () => {
    await page.goto(`${h.url}tree`);
    await page.click('[data-tab=running]');
    const row = page.locator('.row[data-terminal="1"]');
    await row.waitFor();
    expect(await row.locator('a').textContent()).toBe('Terminal 1');
    await row.locator('button:has-text("Shutdown")').click();
    await page.locator('text=No running terminals.').waitFor();
    const res = await fetch(`${h.url}api/terminals`, {
      headers: { authorization: `token ${TOKEN}` },
    });
    expect(await res.json()).toEqual([]);
  });
});
