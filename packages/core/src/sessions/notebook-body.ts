import path from 'node:path/posix';

/**
 * The path a pre-4 client means by `notebook: {name, path}`. IPython 2 sent the directory in
 * `path` and the file name in `name`; 3.x and later send the full path in `path`. JS2 wrongly
 * prefers `name`; nbserve: a `.ipynb` name with a path that is not one is the 2.x shape.
 */
export function pathFromNotebookField(notebook: { name?: string | undefined; path?: string | undefined }): string {
  const { name, path: p } = notebook;
  if (name !== undefined && p !== undefined && name.endsWith('.ipynb') && !p.endsWith('.ipynb')) {
    return p === '' ? name : path.join(p, name);
  }
  return p ?? name ?? '';
}
