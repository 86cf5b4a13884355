/** Which entries are hidden from listings and which paths are off limits without `allowHidden`. */
export const DEFAULT_HIDE_GLOBS: readonly string[] = [
  '__pycache__',
  '*.pyc',
  '*.pyo',
  '.DS_Store',
  '*.so',
  '*.dylib',
  '*~',
];

/** A path is hidden when any of its segments is a dot-file, as in Jupyter's `is_hidden`. */
export function isHiddenPath(path: string): boolean {
  return path.split('/').some((segment) => segment.startsWith('.'));
}

/** Compiles fnmatch-style globs (`*`, `?`, `[...]`) into one matcher for entry names. */
export function compileGlobs(globs: readonly string[]): (name: string) => boolean {
  if (globs.length === 0) return () => false;
  const source = globs.map(globToRegExpSource).join('|');
  const re = new RegExp(`^(?:${source})$`, 's');
  return (name) => re.test(name);
}

function globToRegExpSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') out += '.*';
    else if (ch === '?') out += '.';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end === -1) out += '\\[';
      else {
        let set = glob.slice(i + 1, end).replace(/\\/g, '\\\\');
        if (set.startsWith('!')) set = `^${set.slice(1)}`;
        out += `[${set}]`;
        i = end;
      }
    } else out += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}
