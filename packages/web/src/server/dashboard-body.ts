import type { ContentsModel } from '@nbserve/core';
import { escapeHtml } from '@nbserve/core/html';
import {
  byKindThenName,
  entryHref,
  FILE_ROW_TIMING,
  NAME_COLLATION,
  parentEntry,
  ROW_HEIGHT,
} from '../shared/file-rows.js';
import { DATE_OPTIONS, formatSize, formatTime } from '../shared/format.js';
import { iconPathAttributes } from '../shared/icon-shapes.js';
import { labUrl, url } from '../shared/paths.js';

/** Rows written into the HTML: a tall screen's worth (the page's code renders the rest, and all of them again). */
export const SERVER_ROWS = 40;

export interface DashboardBodyInput {
  baseUrl: string;
  /** The folder shown ('' = the root) and its first page (nbserve's paged listing, with `total`). */
  dir: string;
  page: ContentsModel;
  authEnabled: boolean;
  hubControlPanelUrl?: string | undefined;
  /** JupyterLab is built here: the header links to the folder in it. */
  labAvailable?: boolean | undefined;
  /** The reader's language (a valid BCP 47 tag from Accept-Language), for names' order and dates. */
  locale?: string | undefined;
}

/**
 * The dashboard as its code first draws it (lib/dom `h` calls in dashboard/app.ts and files.ts),
 * written by the server with the folder's top rows in it: they are on screen with the page's
 * first frame, before its code has loaded. The code then replaces the whole body with the same
 * elements, live. Every name and path is escaped; nothing here runs script.
 */
export function renderDashboardBody(input: DashboardBodyInput): string {
  const { baseUrl, dir, page } = input;
  const entries = Array.isArray(page.content) ? (page.content as ContentsModel[]) : [];
  const total = page.total ?? entries.length;
  let rows = entries.slice(0, SERVER_ROWS);
  // a whole folder is shown sorted as the page sorts it; a first page in the server's order (files.ts)
  if (entries.length >= total) rows = [...entries].sort(byKindThenName(collator(input.locale))).slice(0, SERVER_ROWS);
  if (dir) rows = [parentEntry(dir), ...rows].slice(0, SERVER_ROWS);
  const dates = dateFormat(input.locale);
  const listHeight = (entries.length + (dir ? 1 : 0)) * ROW_HEIGHT;
  const crumbs = dir ? dir.split('/') : [];
  return `<header class="topbar"><a class="brand" href="${attr(url(baseUrl, 'tree'))}">nbserve</a><div class="spacer"></div>${
    input.labAvailable
      ? `<a class="btn btn-small lab-link" href="${attr(labUrl(baseUrl, dir))}">Open in JupyterLab</a>`
      : ''
  }${
    input.hubControlPanelUrl
      ? `<a class="btn btn-small" href="${attr(input.hubControlPanelUrl)}">Control panel</a>`
      : ''
  }${
    input.authEnabled ? `<a class="btn btn-small" href="${attr(`${baseUrl}logout`)}">Log out</a>` : ''
  }<button type="button" class="theme-toggle" aria-label="Dark theme" title="Switch to the dark theme" aria-pressed="false">☾</button></header>
<main class="dashboard"><div class="tabs" role="tablist"><button type="button" role="tab" class="tab" data-tab="files" aria-selected="true">Files</button><button type="button" role="tab" class="tab" data-tab="running" aria-selected="false">Running</button><button type="button" role="tab" class="tab" data-tab="clusters" aria-selected="false">Clusters</button></div>
<div class="tab-panel"><section class="files-view"><div class="toolbar"><nav class="breadcrumbs" aria-label="Breadcrumbs"><a href="${attr(url(baseUrl, 'tree'))}" class="crumb">${svgIcon('home')}Home</a>${crumbs
    .map(
      (part, i) =>
        `<span class="crumb-sep">/</span><a href="${attr(url(baseUrl, 'tree', crumbs.slice(0, i + 1).join('/')))}" class="crumb">${escapeHtml(part)}</a>`,
    )
    .join(
      '',
    )}</nav><div class="spacer"></div><div class="selection-actions"></div><button type="button" class="btn">Upload</button><div class="menu-wrap"><button type="button" class="btn btn-primary" aria-haspopup="menu">New ▾</button><div class="menu" role="menu" hidden></div></div><button type="button" class="btn" title="Refresh" aria-label="Refresh">${svgIcon('refresh')}</button></div>
<div class="list-header" role="row"><span class="col col-check"><input type="checkbox" aria-label="Select all"></span><button type="button" class="col col-name sort active" data-sort="name">Name ▲</button><button type="button" class="col col-date sort" data-sort="last_modified">Last modified</button><button type="button" class="col col-size sort" data-sort="size">File size</button></div>
<div class="vlist" role="grid" aria-label="Files" tabindex="0"><div class="vlist-spacer" style="height: ${listHeight}px"><div class="vlist-rows" role="rowgroup">
${rows.map((entry, i) => row(baseUrl, entry, i, dates)).join('\n')}
</div></div></div><div class="list-status">${total} item${total === 1 ? '' : 's'}</div></section></div></main>`;
}

function row(baseUrl: string, entry: ContentsModel, index: number, dates: Intl.DateTimeFormat): string {
  const isParent = entry.name === '..';
  const name = escapeHtml(entry.name);
  return `<div class="row" role="row" data-path="${attr(entry.path)}" data-name="${name}" aria-selected="false" style="transform: translateY(${index * ROW_HEIGHT}px)"><span class="col col-check"><input type="checkbox" aria-label="Select ${name}"${isParent ? ' disabled' : ''}></span><span class="col col-name">${svgIcon(isParent ? 'up' : entry.type)}<a class="entry-link" href="${attr(entryHref(baseUrl, entry))}" elementtiming="${FILE_ROW_TIMING}">${name}</a></span><span class="col col-date" title="${attr(entry.last_modified)}">${escapeHtml(formatTime(entry.last_modified, dates))}</span><span class="col col-size">${escapeHtml(formatSize(entry.size))}</span></div>`;
}

function svgIcon(kind: string): string {
  const path = iconPathAttributes(kind)
    .map(([name, value]) => ` ${name}="${attr(value)}"`)
    .join('');
  return `<svg viewBox="0 0 20 20" class="icon icon-${attr(kind)}" aria-hidden="true"><path${path}></path></svg>`;
}

const attr = escapeHtml;

/** Collators and date formats by language: made once each (tens of milliseconds), a few languages at most. */
const collators = new Map<string, Intl.Collator>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const CACHED_LOCALES = 16;

function collator(locale = ''): Intl.Collator {
  return cached(collators, locale, () => new Intl.Collator(locale || undefined, NAME_COLLATION));
}

/** A day's date in the reader's language; in UTC, the server knowing no reader's time zone. */
function dateFormat(locale = ''): Intl.DateTimeFormat {
  return cached(
    dateFormats,
    locale,
    () => new Intl.DateTimeFormat(locale || undefined, { ...DATE_OPTIONS, timeZone: 'UTC' }),
  );
}

function cached<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) {
    if (map.size >= CACHED_LOCALES) map.clear();
    value = make();
    map.set(key, value);
  }
  return value;
}

/** The first language of an Accept-Language header that this runtime knows, if any. */
export function readerLocale(acceptLanguage: string | undefined): string | undefined {
  const first = acceptLanguage?.split(',')[0]?.split(';')[0]?.trim();
  if (!first || first === '*' || first.length > 35) return undefined;
  try {
    return Intl.DateTimeFormat.supportedLocalesOf(first)[0];
  } catch {
    return undefined; // not a well-formed language tag
  }
}
