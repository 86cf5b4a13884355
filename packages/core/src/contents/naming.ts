/**
 * Jupyter's name incrementer (`increment_filename`): try `base+ext`, then `base<insert>1+ext`, ...
 * The split point is the last dot for `.ipynb` and the first dot otherwise (`data.tar.gz` stays whole).
 */
export async function incrementName(
  name: string,
  insert: string,
  exists: (candidate: string) => Promise<boolean>,
): Promise<string> {
  const [base, suffix] = splitForIncrement(name);
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? `${base}${suffix}` : `${base}${insert}${i}${suffix}`;
    if (!(await exists(candidate))) return candidate;
  }
}

function splitForIncrement(name: string): [string, string] {
  const last = name.lastIndexOf('.');
  if (last !== -1 && name.slice(last + 1) === 'ipynb') return [name.slice(0, last), name.slice(last)];
  const first = name.indexOf('.');
  return first === -1 ? [name, ''] : [name.slice(0, first), name.slice(first)];
}

/** `a-Copy3.ipynb` -> `a.ipynb`, so copying a copy does not stack suffixes (Jupyter's `copy_pat`). */
export function stripCopySuffix(name: string): string {
  return name.replace(/-Copy\d*\./g, '.');
}
