import { dirname, joinPath, url } from '../../shared/paths.js';
import { api, type ContentsModel, contentsRoute } from '../lib/api.js';
import { pageConfig } from '../lib/config.js';
import { confirmDialog, promptDialog } from '../lib/dialog.js';
import { h } from '../lib/dom.js';

/**
 * What the Files tab does to selected entries, over the contents and sessions APIs. Each asks
 * the user what it needs; those that can be cancelled resolve false when nothing was done.
 */

export async function renameEntry(item: ContentsModel): Promise<boolean> {
  const name = await promptDialog(`Rename ${item.type}`, 'New name', item.name);
  if (name === undefined || name === item.name || name.trim() === '') return false;
  if (name.includes('/')) throw new Error('A name cannot contain "/"; use Move instead');
  await api(contentsRoute(item.path), { method: 'PATCH', body: { path: joinPath(dirname(item.path), name) } });
  return true;
}

/** Copies each entry into `dir` (the server names the copies). */
export async function duplicateEntries(dir: string, items: ContentsModel[]): Promise<void> {
  for (const item of items) {
    await api(contentsRoute(dir), { method: 'POST', body: { copy_from: item.path } });
  }
}

export async function moveEntries(dir: string, items: ContentsModel[]): Promise<boolean> {
  const target = await promptDialog(
    `Move ${items.length} item${items.length === 1 ? '' : 's'}`,
    'Destination folder (relative to the root)',
    dir,
  );
  if (target === undefined) return false;
  const dest = target.replace(/^\/+|\/+$/g, '');
  for (const item of items) {
    await api(contentsRoute(item.path), { method: 'PATCH', body: { path: joinPath(dest, item.name) } });
  }
  return true;
}

export function downloadEntries(items: ContentsModel[]): void {
  for (const item of items) {
    const a = h('a', { href: `${url(pageConfig().baseUrl, 'files', item.path)}?download=1`, download: item.name });
    document.body.append(a);
    a.click();
    a.remove();
  }
}

/** Shuts down the sessions (and so the kernels) of the given notebooks. */
export async function shutDownSessionsOf(items: ContentsModel[]): Promise<void> {
  const sessions = await api<{ id: string; path: string }[]>('api/sessions');
  for (const s of sessions) {
    if (items.some((i) => i.path === s.path)) await api(`api/sessions/${s.id}`, { method: 'DELETE' });
  }
}

export async function deleteEntries(items: ContentsModel[]): Promise<boolean> {
  const names = items.map((i) => i.name).join(', ');
  const ok = await confirmDialog(
    'Delete',
    `Are you sure you want to permanently delete ${items.length === 1 ? `"${names}"` : `these ${items.length} items: ${names}`}?`,
    'Delete',
    true,
  );
  if (!ok) return false;
  for (const item of items) await api(contentsRoute(item.path), { method: 'DELETE' });
  return true;
}
