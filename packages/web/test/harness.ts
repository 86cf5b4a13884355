import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../../testing/chromium.js';
import { v4Notebook } from '../../../testing/notebooks.js';
import { type StartServerOptions, startServer, type TestServer } from '../../../testing/server.js';
import { TOKEN } from '../../../testing/token.js';

export interface Harness {
  server: TestServer;
  dir: string;
  root: string;
  url: string;
  browser: Browser;
  context: BrowserContext;
  /** JavaScript dialogs (alert/confirm) any page opened: XSS canaries. */
  dialogs: string[];
  /** Uncaught page errors. */
  pageErrors: string[];
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** A real nbserve (testing/server.ts) and a fresh headless Chromium profile. */
export async function startHarness(options: StartServerOptions = {}): Promise<Harness> {
  const server = await startServer(options);
  const browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  return {
    server,
    dir: server.dir,
    root: server.root,
    url: server.url,
    browser,
    context,
    dialogs,
    pageErrors,
    async newPage() {
      const page = await context.newPage();
      page.on('dialog', (d) => {
        dialogs.push(`${d.type()}: ${d.message()}`);
        void d.dismiss().catch(() => undefined);
      });
      page.on('pageerror', (e) => pageErrors.push(e.message));
      return page;
    },
    async close() {
      await browser.close().catch(() => undefined);
      await server.close().catch(() => undefined);
    },
  };
}

/** Logs in through the login form with the token, as a person would. */
export async function login(page: Page, url: string, next = 'tree'): Promise<void> {
  await page.goto(`${url}${next}`);
  await page.waitForURL(/\/login/);
  await page.fill('input[name=password]', TOKEN);
  await page.click('button[type=submit]');
  await page.waitForSelector('body[data-ready]');
}

export function notebookJson(cells: Record<string, unknown>[], metadata: Record<string, unknown> = {}): string {
  return JSON.stringify(v4Notebook(cells, metadata));
}

/** Records every WebSocket a page of `context` opens (`window.__sockets`), so a test can cut one. */
export async function recordSockets(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const sockets: WebSocket[] = [];
    (window as unknown as { __sockets: WebSocket[] }).__sockets = sockets;
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        sockets.push(this);
      }
    };
  });
}
