// needs: kernel, browser
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The built-in kernel's specs, as the CLI registers them (relative: kernel-js is not a dependency of web).
import { builtinKernelSpecs } from '../../kernel-js/src/kernelspecs.js';
import { type Harness, login, notebookJson, startHarness } from './harness.js';

/**
 * ipywidgets 8 in the notebook page, over the comm messages of the built-in JavaScript kernel's
 * `widgets` module (the ipywidgets that Debian ships is 6.0, an older protocol): on a shared
 * notebook (live collaboration, the default) and on a page working on its own.
 */
const MODES = [
  { name: 'a shared notebook', collaboration: true },
  { name: 'a page on its own', collaboration: false },
] as const;
const WIDGET_STATE = 'application/vnd.jupyter.widget-state+json';

describe.each(MODES)('Jupyter widgets (ipywidgets 8) with the JavaScript kernel, on $name', ({ collaboration }) => {
  let h: Harness;
  let page: Page;
  const requested: string[] = [];
  /** What the page printed about yjs (a type read before it is in a document, a second yjs). */
  const yjsWarnings: string[] = [];

  const cells = (p: Page = page) => p.locator('.notebook-cells > .cell');

  async function run(code: string): Promise<Locator> {
    const cell = cells().nth((await cells().count()) - 1);
    await cell.locator('.input-area').click();
    await page.keyboard.insertText(code);
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => cell.locator('.input-prompt').textContent(), { timeout: 30_000 }).toMatch(/^In \[\d+\]:$/);
    return cell;
  }

  /** The kernel's value of `expression` (its text/plain result), read by running a cell. */
  async function kernelValue(expression: string): Promise<string> {
    const cell = await run(expression);
    return (await cell.locator('.output-execute_result .output-text').textContent()) ?? '';
  }

  /** Types `value` into a slider's readout, as a person would. */
  async function typeInto(readout: Locator, value: string, p: Page = page): Promise<void> {
    await readout.click();
    await p.keyboard.press('Control+a');
    await p.keyboard.type(value);
    await p.keyboard.press('Enter');
  }

  beforeAll(async () => {
    h = await startHarness({ builtinKernelSpecs: builtinKernelSpecs({ mode: 'source' }), collaboration });
    await fs.writeFile(
      path.join(h.root, 'widgets.ipynb'),
      notebookJson([], {
        kernelspec: { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' },
      }),
    );
    page = await h.newPage();
    page.on('request', (r) => requested.push(r.url()));
    page.on('console', (m) => {
      if (/yjs|Y\.Doc/i.test(m.text())) yjsWarnings.push(m.text());
    });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('loads no widget code until a widget shows, then renders an IntSlider', async () => {
    await login(page, h.url, 'notebooks/widgets.ipynb');
    await page.waitForSelector('.kernel-status[data-status=idle]', { timeout: 30_000 });
    const scripts = () => new Set(requested.filter((u) => /\/static\/[^/]+\.js$/.test(u))).size;
    const widgetStyles = () => page.locator('#nbserve-widget-styles').count();
    await run('1 + 1');
    const before = scripts();
    expect(await widgetStyles()).toBe(0);
    const cell = await run('const s = new widgets.IntSlider({ value: 3, max: 10, description: "n" }); s');
    const slider = cell.locator('.widget-slider');
    await slider.waitFor({ timeout: 30_000 });
    expect(scripts()).toBeGreaterThan(before);
    expect(await widgetStyles()).toBe(1);
    expect(await slider.locator('.widget-label').textContent()).toBe('n');
    await expect.poll(() => slider.locator('.widget-readout').textContent()).toBe('3');
    // The text form is gone once the view is there.
    expect(await cell.locator('.widget-area .output-text').count()).toBe(0);
  });

  it('sends a dragged slider value to the kernel', async () => {
    const slider = cells().nth(1).locator('.widget-slider');
    const track = (await slider.locator('.noUi-target').boundingBox()) as { x: number; y: number; width: number };
    const handle = (await slider.locator('.noUi-handle').boundingBox()) as {
      x: number;
      y: number;
      width: number;
      height: number;
    };
    await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
    await page.mouse.down();
    await page.mouse.move(track.x + track.width * 0.8, handle.y + handle.height / 2, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => slider.locator('.widget-readout').textContent()).toBe('8');
    expect(await kernelValue('s.value')).toBe('8');
    // And the other way: the kernel sets it, the view follows.
    await run('s.value = 2');
    await expect.poll(() => slider.locator('.widget-readout').textContent()).toBe('2');
  });

  it('updates an Output from a slider observer in the kernel', async () => {
    const cell = await run(
      'const out = new widgets.Output(); const t = new widgets.IntSlider({ description: "t" });\n' +
        't.observe((c) => { out.clearOutput(); out.appendStdout("squared: " + c.new * c.new + "\\n") }, "value");\n' +
        'display(t); display(out);',
    );
    const readout = cell.locator('.widget-slider .widget-readout');
    await readout.waitFor({ timeout: 30_000 });
    // Typed into the readout: the notebook's command keys leave it alone.
    const count = await cells().count();
    await typeInto(readout, '6');
    await expect
      .poll(() => cell.locator('.widget-output .output-stream').textContent(), { timeout: 30_000 })
      .toBe('squared: 36\n');
    expect(await cells().count()).toBe(count); // no cell was inserted or deleted by the keys
    expect(await kernelValue('t.value')).toBe('6');
  });

  it('shows an IntProgress the kernel updates', async () => {
    const cell = await run('const p = new widgets.IntProgress({ max: 10, description: "work" }); p');
    const bar = cell.locator('.widget-hprogress .progress-bar');
    await bar.waitFor({ state: 'attached', timeout: 30_000 });
    expect(await bar.evaluate((el) => (el as HTMLElement).style.width)).toBe('0%');
    await run('for (let i = 1; i <= 5; i++) { p.value = i; await new Promise((r) => setTimeout(r, 20)); }');
    await expect.poll(() => bar.evaluate((el) => (el as HTMLElement).style.width)).toBe('50%');
  });

  it('gets the live widgets back from the kernel after a reload', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    const cell = cells().nth(4);
    const readout = cell.locator('.widget-slider .widget-readout');
    await expect.poll(() => readout.textContent(), { timeout: 30_000 }).toBe('6');
    // Live, not a saved copy: the kernel's observer answers.
    await typeInto(readout, '4');
    await expect
      .poll(() => cell.locator('.widget-output .output-stream').textContent(), { timeout: 30_000 })
      .toBe('squared: 16\n');
  });

  it('shows a slider moved in one page in a second page on the same notebook, through the kernel', async () => {
    const other = await h.newPage();
    try {
      await other.goto(`${h.url}notebooks/widgets.ipynb`);
      await other.waitForSelector('body[data-ready]');
      const mine = cells().nth(4);
      const theirs = cells(other).nth(4);
      const theirReadout = theirs.locator('.widget-slider .widget-readout');
      await expect.poll(() => theirReadout.textContent(), { timeout: 30_000 }).toBe('4');
      await typeInto(mine.locator('.widget-slider .widget-readout'), '5');
      await expect.poll(() => theirReadout.textContent(), { timeout: 30_000 }).toBe('5');
      await expect
        .poll(() => theirs.locator('.widget-output .output-stream').textContent(), { timeout: 30_000 })
        .toBe('squared: 25\n');
      // And back: moved in the second page, shown in the first, known to the kernel.
      await typeInto(theirReadout, '7', other);
      await expect
        .poll(() => mine.locator('.widget-slider .widget-readout').textContent(), { timeout: 30_000 })
        .toBe('7');
      expect(await kernelValue('t.value')).toBe('7');
    } finally {
      await other.close();
    }
  }, 120_000);

  it('saves the widget state and shows it when the notebook is opened again without running', async () => {
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+s');
    await page.locator('.save-state[data-state=saved]').waitFor();
    type Saved = {
      version_major: number;
      state: Record<string, { model_name: string; state: Record<string, unknown> }>;
    };
    let state: Saved = { version_major: 0, state: {} };
    const byName = (name: string) => Object.values(state.state).filter((m) => m.model_name === name);
    // A widget change alone does not dirty the page: wait for the file itself.
    await expect
      .poll(async () => {
        const nb = JSON.parse(await fs.readFile(path.join(h.root, 'widgets.ipynb'), 'utf8'));
        state = nb.metadata.widgets[WIDGET_STATE] as Saved;
        return byName('IntSliderModel').map((m) => m.state.value);
      })
      .toEqual(expect.arrayContaining([2, 7]));
    expect(state.version_major).toBe(2);
    expect(byName('IntProgressModel')[0]?.state.value).toBe(5);

    // A new kernel knows none of these widgets: what shows comes from the saved state.
    const sessions = (await (await h.server.fetch('api/sessions')).json()) as { id: string }[];
    for (const s of sessions)
      expect((await h.server.fetch(`api/sessions/${s.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await (await h.server.fetch('api/kernels')).json()).toEqual([]);
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    // Saved by the page or, for a shared notebook, by the server (its cells ran there): the save is
    // signed, so the user's own widgets show again without trusting the notebook.
    await page.locator('.trust-state[data-trusted=true]').waitFor({ timeout: 30_000 });
    const slider = cells().nth(1).locator('.widget-slider');
    await slider.waitFor({ timeout: 30_000 });
    await expect.poll(() => slider.locator('.widget-readout').textContent()).toBe('2');
    await expect
      .poll(() => cells().nth(4).locator('.widget-output .output-stream').textContent())
      .toBe('squared: 49\n');
    const bar = cells().nth(6).locator('.progress-bar');
    await expect.poll(() => bar.evaluate((el) => (el as HTMLElement).style.width)).toBe('50%');
    expect(h.pageErrors).toEqual([]);
    expect(yjsWarnings).toEqual([]);
  });
});
