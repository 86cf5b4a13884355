import { getWebAssets, type PageConfig, pageCsp, renderPage } from '@nbserve/web';
import type { Context } from 'hono';
import * as v from 'valibot';
import { ensureXsrfCookie } from '../../auth/cookies.js';
import type { NbserveEnv } from '../../env.js';
import { parseWith } from '../../validate.js';

type Ctx = Context<NbserveEnv>;
type Entry = 'dashboard' | 'notebook' | 'editor' | 'terminal';

/** A path below a page prefix: no NUL bytes, bounded length; the contents manager checks the rest. */
const PagePath = v.pipe(v.string(), v.maxLength(4096), v.regex(/^[^\0]*$/, 'must not contain NUL'));

/** The API path after `prefix` in the request URL, each segment percent-decoded. */
export function pagePath(c: Ctx, prefix: string): string {
  const rel = c.get('relPath');
  const rest = rel.startsWith(prefix) ? rel.slice(prefix.length) : '';
  let decoded: string;
  try {
    decoded = rest
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s))
      .join('/');
  } catch {
    decoded = '\0'; // malformed escapes fail validation below
  }
  return parseWith(PagePath, decoded, 'path');
}

/** URL of a page for an API path, each segment escaped. */
export function pageUrl(c: Ctx, prefix: string, path: string): string {
  const encoded = path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
  return `${c.get('baseUrl')}${prefix}${encoded ? `/${encoded}` : ''}`;
}

/**
 * Sends one of the web UI's HTML pages with the strict page CSP and the config data block;
 * `body` writes what the page shows before its code runs (escaped markup, from the config). Such
 * a page gets its stylesheet inline too: no request then holds back its first frame.
 */
export async function sendPage(
  c: Ctx,
  entry: Entry,
  title: string,
  path: string,
  extra: Record<string, unknown> = {},
  body?: (config: PageConfig) => string,
): Promise<Response> {
  const assets = await getWebAssets();
  const baseUrl = c.get('baseUrl');
  const config: PageConfig = {
    ...extra,
    baseUrl,
    path,
    xsrfToken: ensureXsrfCookie(c),
    authEnabled: c.get('authVia') !== 'disabled',
    outputFrameUrl: `${baseUrl}output-frame`,
    // the dashboard offers New > Terminal and lists terminals only when the server has them
    terminals: c.get('services').terminals !== null,
  };
  const hub = c.get('services').hub;
  if (hub) config.hubControlPanelUrl = hub.controlPanelUrl;
  // pages link to JupyterLab when it is built here
  if (await c.get('services').lab.app()) config.labAvailable = true;
  const bodyHtml = body?.(config);
  return c.html(
    renderPage({ entry, title, config, assets, ...(bodyHtml ? { bodyHtml, inlineStyles: true } : {}) }),
    200,
    {
      'Content-Security-Policy': pageCsp(c.req.header('host') ?? new URL(c.req.url).host),
      'Cache-Control': 'no-store',
    },
  );
}
