/**
 * Driving the real JupyterLab in Chromium (playwright-core), shared by the JupyterLab page tests
 * and the JupyterHub end-to-end test: the page's app (`--expose-app-in-browser`), what went wrong
 * on a page, opening JupyterLab, and running a notebook's first cell.
 */
import type { Page } from 'playwright-core';

/** What the page exposes with `exposeAppInBrowser` (JupyterLab's `window.jupyterapp`). */
export interface LabWindow {
  jupyterapp: {
    restored: Promise<void>;
    commands: { execute(id: string, args?: unknown): Promise<unknown>; hasCommand(id: string): boolean };
  };
}

/** Problems a page reports: uncaught errors, console errors, failed requests and sockets. */
export function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400)
      problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('websocket', (socket) =>
    socket.on('socketerror', (error) => problems.push(`socket ${socket.url()}: ${error}`)),
  );
  return problems;
}

/** Waits until the JupyterLab app on the page has restored its layout. */
export async function labRestored(page: Page): Promise<void> {
  await page.waitForFunction(() => (window as unknown as Partial<LabWindow>).jupyterapp !== undefined, null, {
    timeout: 60_000,
  });
  await page.evaluate(() => (window as unknown as LabWindow).jupyterapp.restored);
}

/** Loads a JupyterLab URL and waits until the app has restored its layout. */
export async function openLab(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await labRestored(page);
}

/** The first cell of the notebook in the current tab. */
export function firstCell(page: Page) {
  return page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell').first();
}

/** The notebook panel of the current tab, as far as these tests read it. */
interface NotebookPanelView {
  context?: { isReady: boolean };
  sessionContext?: { session?: { kernel?: { status: string } | null } | null };
  content?: { widgets: { model: { sharedModel: { getSource(): string } } }[] };
}
type ShellWindow = { jupyterapp: { shell: { currentWidget: NotebookPanelView | null } } };

/**
 * Types into the first cell of the notebook in the current tab and runs it. Waits first for the
 * document (its shared model synced) and its kernel (idle), and then for the typed text to be the
 * cell's source: on a loaded machine keys typed before the document synced were lost, and
 * Shift+Enter ran an empty cell.
 */
export async function runFirstCell(page: Page, code: string): Promise<void> {
  await page.waitForFunction(
    () => {
      const panel = (window as unknown as ShellWindow).jupyterapp.shell.currentWidget;
      return panel?.context?.isReady === true && panel.sessionContext?.session?.kernel?.status === 'idle';
    },
    null,
    { timeout: 120_000 },
  );
  await firstCell(page).locator('.cm-content').click();
  await page.keyboard.type(code);
  await page.waitForFunction(
    (typed) => {
      const panel = (window as unknown as ShellWindow).jupyterapp.shell.currentWidget;
      return panel?.content?.widgets[0]?.model.sharedModel.getSource() === typed;
    },
    code,
    { timeout: 30_000 },
  );
  await page.keyboard.press('Shift+Enter');
}
