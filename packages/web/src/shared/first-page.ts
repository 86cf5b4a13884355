import { url } from './paths.js';

/**
 * Entries of the first page a folder is shown with: the server embeds it in the dashboard's HTML
 * (and renders its top rows there), and the page asks for it when it opens another folder; a
 * bigger folder is then fetched whole, behind those rows.
 */
export const FIRST_PAGE = 200;

/** The API route (below the base URL) of a folder's first page, nbserve's paged listing (docs/contents-api.md). */
export function firstPageRoute(path: string): string {
  return `${url('', 'api/contents', path)}?content=1&offset=0&limit=${FIRST_PAGE}`;
}
