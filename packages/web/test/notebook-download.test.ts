// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

// File > Download: saves first, so what the page shows is what is downloaded, and offers every
// format the server exports to (built-ins, and nbconvert's: Debian's python3-nbconvert and pandoc
// are installed for the tests; PDF is the HTML export printed by Chromium without xelatex).

let h: Harness;
let page: Page;
const NB = 'Report.ipynb';
const ADDED = 'added_cell = "just added"';
const MATH = 'Inline $a\\,b = \\frac{1}{2}$ and display $$\\int_0^1 x^2\\,dx$$';

async function downloadAs(format: string): Promise<{ name: string; file: string; bytes: Buffer }> {
  await page.click('[data-menu=file]');
  const download = page.waitForEvent('download', { timeout: 150_000 });
  const command = { ipynb: 'download-ipynb', script: 'download-script', html: 'download-html' }[format];
  if (command) {
    await page.click(`.menu-item[data-command=${command}]`);
  } else {
    await page.click('.menu-item[data-command=download-as]');
    await page.click(`.menu-item[data-format=${format}]`);
  }
  const done = await download;
  const file = (await done.path()) as string;
  return { name: done.suggestedFilename(), file, bytes: await fs.readFile(file) };
}

beforeAll(async () => {
  h = await startHarness();
  const cells = [
    { cell_type: 'markdown', metadata: {}, source: `# Results\n\n${MATH}` },
    {
      cell_type: 'code',
      metadata: {},
      execution_count: 1,
      source: 'print(6 * 7)',
      outputs: [{ output_type: 'stream', name: 'stdout', text: '42\n' }],
    },
  ];
  await fs.writeFile(
    path.join(h.root, NB),
    notebookJson(cells, {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python' },
    }),
  );
  page = await h.newPage();
  await login(page, h.url, `notebooks/${NB}`);
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('File > Download (real server, real nbconvert)', () => {
  it('saves first: a just-added cell is in the downloaded notebook', async () => {
    await page.locator('.notebook-cells > .cell').last().click();
    await page.keyboard.press('Escape');
    await page.keyboard.press('b');
    await page.keyboard.press('Enter');
    await page.keyboard.insertText(ADDED);
    await page.keyboard.press('Escape');
    await page.locator('.save-state[data-state=dirty]').waitFor();
    const { name, bytes } = await downloadAs('ipynb');
    expect(name).toBe(NB);
    const sources = (JSON.parse(bytes.toString('utf8')) as { cells: { source: string | string[] }[] }).cells.map((c) =>
      Array.isArray(c.source) ? c.source.join('') : c.source,
    );
    expect(sources).toContain(ADDED);
    expect(await fs.readFile(path.join(h.root, NB), 'utf8')).toContain('just added');
    await page.locator('.save-state[data-state=saved]').waitFor();
  }, 180_000);

  it('offers the formats the server lists (nbconvert installed)', async () => {
    await page.click('[data-menu=file]');
    await page.click('.menu-item[data-command=download-as]');
    const formats = () =>
      page.locator('.menu-item[data-format]').evaluateAll((els) => els.map((el) => el.getAttribute('data-format')));
    try {
      await expect
        .poll(formats, { timeout: 60_000 })
        .toEqual(['slides', 'markdown', 'rst', 'latex', 'pdf', 'asciidoc']);
    } finally {
      await page.mouse.click(640, 700); // closes the menu
    }
  }, 60_000);

  it('built-in HTML: math rendered server-side (MathML by KaTeX), every backslash kept', async () => {
    const { name, bytes } = await downloadAs('html');
    expect(name).toBe('Report.html');
    const file = path.join(h.dir, name); // the download's own name has no extension: not read as HTML
    await fs.writeFile(file, bytes);
    const view = await h.newPage();
    await view.goto(pathToFileURL(file).href);
    const math = await view.evaluate(() =>
      [...document.querySelectorAll('math')].map((m) => ({
        tex: m.querySelector('annotation')?.textContent,
        display: m.getAttribute('display'),
        width: m.getBoundingClientRect().width,
      })),
    );
    expect(math.map((m) => m.tex)).toEqual(['a\\,b = \\frac{1}{2}', '\\int_0^1 x^2\\,dx']);
    expect(math[1]?.display).toBe('block');
    expect(math.every((m) => m.width > 10)).toBe(true);
    // No TeX left as text, and no backslash-comma turned into a comma.
    const text = await view.evaluate(() => {
      const clone = document.body.cloneNode(true) as HTMLElement;
      for (const m of clone.querySelectorAll('math')) m.remove();
      return clone.textContent ?? '';
    });
    expect(text).not.toContain('$');
    expect(text).not.toContain('a,b');
    expect(text).toContain('just added');
    await view.close();
  }, 180_000);

  it('built-in script', async () => {
    const { name, bytes } = await downloadAs('script');
    expect(name).toBe('Report.py');
    expect(bytes.toString('utf8')).toContain(ADDED);
  }, 180_000);

  it('built-in Markdown keeps the TeX as written', async () => {
    const { name, bytes } = await downloadAs('markdown');
    expect(name).toBe('Report.md');
    expect(bytes.toString('utf8')).toContain(MATH);
    expect(bytes.toString('utf8')).toContain(ADDED);
  }, 180_000);

  it('nbconvert LaTeX', async () => {
    const { name, bytes } = await downloadAs('latex');
    expect(name).toBe('Report.tex');
    const tex = bytes.toString('utf8');
    expect(tex).toContain('\\begin{document}');
    expect(tex).toContain('a\\,b = \\frac{1}{2}');
    expect(tex).toContain('just added');
  }, 180_000);

  it('nbconvert reST', async () => {
    const { name, bytes } = await downloadAs('rst');
    expect(name).toBe('Report.rst');
    expect(bytes.toString('utf8')).toContain('Results\n=======');
    expect(bytes.toString('utf8')).toContain(ADDED);
  }, 180_000);

  it('nbconvert AsciiDoc', async () => {
    const { name, bytes } = await downloadAs('asciidoc');
    expect(name).toBe('Report.asciidoc');
    expect(bytes.toString('utf8')).toContain('= Results');
    expect(bytes.toString('utf8')).toContain(ADDED);
  }, 180_000);

  it('nbconvert Reveal.js slides', async () => {
    const { name, bytes } = await downloadAs('slides');
    expect(name).toBe('Report.slides.html');
    expect(bytes.toString('utf8')).toContain('reveal');
    expect(bytes.toString('utf8')).toContain('just added');
  }, 180_000);

  it('PDF: the HTML export printed by Chromium (LaTeX when xelatex is installed)', async () => {
    const { name, bytes } = await downloadAs('pdf');
    expect(name).toBe('Report.pdf');
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.length).toBeGreaterThan(5000);
    expect((bytes.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? []).length).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
