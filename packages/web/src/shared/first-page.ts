/** Entries of the first page the dashboard lists a folder with; a bigger folder is then fetched whole. */
export const FIRST_PAGE = 500;

/**
 * The API route (below the base URL) of a folder's first page, nbserve's paged listing
 * (docs/contents-api.md). The server announces it in the dashboard's HTML with
 * `<link rel="preload" as="fetch">` and the page requests the very same URL, so the listing
 * starts while the page's code is still loading and the browser answers the page from it.
 */
export function firstPageRoute(path: string): string {
  const encoded = path
    .split('/')
    .filter((s) => s !== '')
    .map(encodeURIComponent)
    .join('/');
  return `api/contents${encoded ? `/${encoded}` : ''}?content=1&offset=0&limit=${FIRST_PAGE}`;
}
