import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../../../testing/chromium.js';
// A relative import: @nbserve/http depends on this package, so it cannot be a dependency here.
import { serve } from '../../http/src/index.js';

export const TOKEN = 'browser-test-token-5f1e0c2a9b8d7e6f5a4b3c2d1e0f9a8b';

export interface Harness {
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

/** A real nbserve on port 0 over a fresh temp root, and a fresh headless Chromium profile. */
export async function startHarness(
  options: { baseUrl?: string; serve?: Partial<Parameters<typeof serve>[0]> } = {},
): Promise<Harness> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'nbserve-web-'));
  const root = path.join(dir, 'root');
  await fs.mkdir(root);
  const running = await serve({
    root,
    port: 0,
    ip: '127.0.0.1',
    token: TOKEN,
    baseUrl: options.baseUrl ?? '/',
    configDir: path.join(dir, 'config'),
    dataDir: path.join(dir, 'data'),
    runtimeDir: path.join(dir, 'runtime'),
    ...options.serve,
  });
  const browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    acceptDownloads: true,
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  return {
    dir,
    root,
    url: running.url,
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
      await running.close().catch(() => undefined);
      await fs.rm(dir, { recursive: true, force: true });
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

export function notebookJson(cells: unknown[], metadata: Record<string, unknown> = {}): string {
  return JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata, cells });
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
