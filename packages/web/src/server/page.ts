import { escapeHtml, jsonForScript } from '@nbserve/core/html';
import type { EntryName, StaticAsset, WebAssets } from '../bundle/build.js';

/**
 * The Content-Security-Policy of every nbserve HTML page: no inline scripts and nothing from
 * other origins. Inline styles stay allowed because KaTeX and CodeMirror set style attributes.
 * Frames are only our own sandboxed output frame.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "object-src 'none'",
].join('; ');

/**
 * The page CSP for a request to `host`: older Safari does not count same-host WebSockets as
 * 'self', so the kernel WebSocket origin is listed explicitly (only for a well-formed Host).
 */
export function pageCsp(host: string | undefined): string {
  if (!host || !/^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)) return PAGE_CSP;
  return PAGE_CSP.replace("connect-src 'self'", `connect-src 'self' ws://${host} wss://${host}`);
}

/** What the browser code reads from the page's JSON data block. */
export interface PageConfig {
  baseUrl: string;
  /** API path of the directory, notebook or file the page shows ('' = root). */
  path: string;
  [key: string]: unknown;
}

export interface PageInput {
  entry: EntryName;
  title: string;
  config: PageConfig;
  assets: WebAssets;
  /** Server-rendered markup placed in <main> (already escaped by the caller). */
  bodyHtml?: string;
  bodyClass?: string;
  /**
   * The entry's stylesheet written into the page instead of linked: no request holds back the
   * first frame (the dashboard's server-rendered rows). The CSP allows inline styles already.
   */
  inlineStyles?: boolean;
}

export function staticUrl(baseUrl: string, assets: WebAssets, logical: string): string | undefined {
  const file = assets.manifest[logical];
  return file === undefined ? undefined : `${baseUrl}static/${file}`;
}

/** The HTML shell of a page: stylesheet, module script and the config data block. */
export function renderPage(input: PageInput): string {
  const { baseUrl } = input.config;
  const css = staticUrl(baseUrl, input.assets, `${input.entry}.css`);
  const js = staticUrl(baseUrl, input.assets, `${input.entry}.js`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(input.title)}</title>
<link rel="icon" href="data:,">
${stylesheet(input, css)}
<script type="application/json" id="nbserve-config">${jsonForScript(input.config)}</script>
${js ? `<script type="module" src="${escapeHtml(js)}"></script>` : ''}
${(input.assets.preload[input.entry] ?? []).map((f) => `<link rel="modulepreload" href="${escapeHtml(`${baseUrl}static/${f}`)}">`).join('\n')}
</head>
<body class="${escapeHtml(input.bodyClass ?? `page-${input.entry}`)}">
${input.bodyHtml ?? ''}
</body>
</html>
`;
}

/** Stylesheets as text, decoded once each. */
const styleTexts = new WeakMap<StaticAsset, string>();

function stylesheet(input: PageInput, href: string | undefined): string {
  if (!href) return '';
  const name = input.assets.manifest[`${input.entry}.css`];
  const file = input.inlineStyles && name ? input.assets.files.get(name) : undefined;
  let text = '';
  if (file) {
    text = styleTexts.get(file) ?? new TextDecoder().decode(file.body);
    styleTexts.set(file, text);
  }
  // (a stylesheet that could end the <style> element stays linked)
  if (text && !/<\/style/i.test(text)) return `<style>${text}</style>`;
  return `<link rel="stylesheet" href="${escapeHtml(href)}">`;
}
