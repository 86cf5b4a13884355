/** This session's executed cells, answering `history_request` (tail, range and search). */
export class History {
  readonly #entries: { line: number; input: string }[] = [];
  static readonly SESSION = 1;

  add(line: number, input: string): void {
    this.#entries.push({ line, input });
  }

  query(content: Record<string, unknown>): [number, number, string][] {
    const type = content.hist_access_type;
    let entries = this.#entries;
    if (type === 'range') {
      const start = Number(content.start ?? 0);
      const stop =
        content.stop === undefined || content.stop === null ? Number.POSITIVE_INFINITY : Number(content.stop);
      entries = entries.filter((e) => e.line >= start && e.line < stop);
    } else if (type === 'search') {
      const pattern = typeof content.pattern === 'string' ? content.pattern : '*';
      const matcher = globToRegExp(pattern);
      entries = entries.filter((e) => matcher.test(e.input));
      if (content.unique === true) {
        const seen = new Set<string>();
        entries = entries.filter((e) => !seen.has(e.input) && seen.add(e.input));
      }
      const n = Number(content.n ?? 0);
      if (n > 0) entries = entries.slice(-n);
    } else {
      const n = Number(content.n ?? 10);
      entries = n > 0 ? entries.slice(-n) : [];
    }
    return entries.map((e) => [History.SESSION, e.line, e.input]);
  }
}

/** IPython's history search pattern: `*` and `?` glob, matched against the whole input. */
function globToRegExp(glob: string): RegExp {
  const escaped = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '[\\s\\S]*')
    .replace(/\?/g, '[\\s\\S]');
  return new RegExp(`^${escaped}$`);
}
