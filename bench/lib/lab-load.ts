import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/** One JupyterLab page load as the network and the app saw it. */
export interface LabLoad {
  /** Navigation start to `window.jupyterapp.restored` resolved, ms. */
  restoredMs: number;
  /** Bytes received over the wire for the page's HTML (headers + body as sent, compressed). */
  pageBytes: number;
  /** Bytes received over the wire for everything else (static files, API answers). */
  otherBytes: number;
  /** Requests that reached the server, besides the page. */
  otherRequests: number;
  /** Of those, answered 304 Not Modified. */
  notModified: number;
  /** Requests besides the page served from the browser's cache with no request to the server. */
  fromCache: number;
  /** The largest transfers besides the page (url and bytes), to explain a total. */
  largest: Array<{ url: string; bytes: number; status: number }>;
}

interface Seen {
  url: string;
  type: string;
  status: number;
  cached: boolean;
}

/**
 * Installed before any page script: when JupyterLab's main sets `window.jupyterapp` (page config
 * `exposeAppInBrowser`), note the time `restored` resolves, so a fast load is not measured late
 * by polling. A string, not a function: tsx would wrap a function's source in helpers the page lacks.
 */
const TRAP_RESTORED = `(() => {
  let app;
  Object.defineProperty(window, 'jupyterapp', {
    configurable: true,
    get: () => app,
    set(value) {
      app = value;
      value.restored.then(() => { window.__restoredAt = performance.now(); });
    },
  });
})();`;

/** Counts what crosses the wire for one page through the DevTools protocol's Network events. */
async function recordNetwork(session: CDPSession): Promise<() => Omit<LabLoad, 'restoredMs'>> {
  const seen = new Map<string, Seen>();
  const bytes = new Map<string, number>();
  // sent before or after responseReceived depending on the cache: kept apart
  const servedFromCache = new Set<string>();
  session.on('Network.responseReceived', (event) => {
    seen.set(event.requestId, {
      url: event.response.url,
      type: event.type,
      status: event.response.status,
      cached: event.response.fromDiskCache === true || event.response.fromPrefetchCache === true,
    });
  });
  session.on('Network.requestServedFromCache', (event) => servedFromCache.add(event.requestId));
  // encodedDataLength at the end of a load: headers and body as received, before decoding
  session.on('Network.loadingFinished', (event) => bytes.set(event.requestId, event.encodedDataLength));
  await session.send('Network.enable');
  return () => {
    const load: Omit<LabLoad, 'restoredMs'> = {
      pageBytes: 0,
      otherBytes: 0,
      otherRequests: 0,
      notModified: 0,
      fromCache: 0,
      largest: [],
    };
    for (const [id, entry] of seen) {
      if (servedFromCache.has(id)) entry.cached = true;
      const size = entry.cached ? 0 : (bytes.get(id) ?? 0);
      if (entry.type === 'Document') {
        load.pageBytes += size;
        continue;
      }
      if (entry.cached) {
        load.fromCache++;
        continue;
      }
      load.otherBytes += size;
      load.otherRequests++;
      if (entry.status === 304) load.notModified++;
      load.largest.push({ url: entry.url, bytes: size, status: entry.status });
    }
    load.largest.sort((a, b) => b.bytes - a.bytes);
    load.largest = load.largest.slice(0, 5);
    return load;
  };
}

async function restoredAt(page: Page): Promise<number> {
  const handle = await page.waitForFunction(
    () => (window as unknown as { __restoredAt?: number }).__restoredAt ?? false,
    null,
    { timeout: 120_000, polling: 50 },
  );
  return (await handle.jsonValue()) as number;
}

/**
 * Loads JupyterLab at `url` in `page` (a first load when the context's cache is empty), or reloads
 * the page when `reload` is set, and measures it until the app's `restored` resolves.
 */
export async function measureLabLoad(page: Page, url: string, reload: boolean): Promise<LabLoad> {
  const session = await page.context().newCDPSession(page);
  try {
    const finish = await recordNetwork(session);
    if (reload) await page.reload({ waitUntil: 'commit', timeout: 60_000 });
    else await page.goto(url, { waitUntil: 'commit', timeout: 60_000 });
    const restoredMs = await restoredAt(page);
    // let the requests made as the app settles (settings saves, late chunks) finish and be counted
    await page.waitForLoadState('networkidle', { timeout: 30_000 }).catch(() => undefined);
    return { restoredMs, ...finish() };
  } finally {
    await session.detach().catch(() => undefined);
  }
}

/** A context ready for JupyterLab loads: the restored-state trap installed before page scripts. */
export async function prepareLabContext(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: TRAP_RESTORED });
}
