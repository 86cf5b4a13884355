import type { ContentsModel } from '@nbserve/core';
import { dirname, url } from './paths.js';

/**
 * What the dashboard's file list and the server's first rows of it agree on: row height, order,
 * links and the `..` row. (The server writes the top rows into the page's HTML; the page's code
 * then builds the very same rows.)
 */

export const ROW_HEIGHT = 36;

/**
 * The `elementtiming` of every row's name: Chromium then reports when rows are first painted
 * (`PerformanceObserver` type `element`), for `pnpm bench` and anyone's performance tools.
 */
export const FILE_ROW_TIMING = 'file-row';

/** How the list orders names (the browser makes its collator with these, the server in the reader's language). */
export const NAME_COLLATION: Intl.CollatorOptions = { numeric: true, sensitivity: 'base' };

const TYPE_ORDER = { directory: 0, notebook: 1, file: 2 } as const;

/** Folders, then notebooks, then files, each kind by name; `dir` -1 reverses the names. */
export function byKindThenName(collator: Intl.Collator, dir = 1): (a: ContentsModel, b: ContentsModel) => number {
  return (a, b) => {
    const t = TYPE_ORDER[a.type] - TYPE_ORDER[b.type];
    return t !== 0 ? t : dir * collator.compare(a.name, b.name);
  };
}

/** The `..` row at the top of any folder but the root. */
export function parentEntry(dir: string): ContentsModel {
  return {
    name: '..',
    path: dirname(dir),
    type: 'directory',
    writable: true,
    created: '',
    last_modified: '',
    size: null,
    mimetype: null,
    content: null,
    format: null,
    hash: null,
    hash_algorithm: null,
  };
}

/** The page an entry's link opens: a folder's dashboard, a notebook, the editor for text, else the raw file. */
export function entryHref(baseUrl: string, item: ContentsModel): string {
  if (item.type === 'directory') return url(baseUrl, 'tree', item.path);
  if (item.type === 'notebook') return url(baseUrl, 'notebooks', item.path);
  if (item.mimetype?.startsWith('text/') || /\.(txt|md|py|js|ts|json|ya?ml|toml|cfg|ini|csv|sh|r|jl)$/i.test(item.name))
    return url(baseUrl, 'edit', item.path);
  return url(baseUrl, 'files', item.path);
}
