/** API paths are '/'-separated without a leading slash; '' is the root. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map(encodeURIComponent)
    .join('/');
}

export function joinPath(dir: string, name: string): string {
  return dir === '' ? name : `${dir}/${name}`;
}

export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A URL of a page or API route under the base URL, with each path segment escaped. */
export function url(baseUrl: string, prefix: string, path = ''): string {
  const encoded = encodePath(path);
  return `${baseUrl}${prefix}${encoded ? `/${encoded}` : ''}`;
}

/** JupyterLab's page for a path (`<base>lab/tree/<path>`), or JupyterLab itself for the root. */
export function labUrl(baseUrl: string, path = ''): string {
  return path === '' ? `${baseUrl}lab` : url(baseUrl, 'lab/tree', path);
}
