/**
 * The shapes of nbserve's inline SVG icons (no icon font, no external requests): the browser
 * builds them with DOM APIs, the server writes the dashboard's first rows with the same.
 */
const PATHS: Record<string, string> = {
  directory:
    'M2 4.5A1.5 1.5 0 0 1 3.5 3h3.6l1.6 1.6h6.8A1.5 1.5 0 0 1 17 6.1v8.4a1.5 1.5 0 0 1-1.5 1.5h-12A1.5 1.5 0 0 1 2 14.5z',
  notebook: 'M4 2h10a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1H4zM6 2v16M8.5 6h4M8.5 9h4',
  file: 'M5 2h6l4 4v11a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1zM11 2v4h4',
  terminal: 'M3 4h14v12H3zM6 8l3 2-3 2M10 13h4',
  up: 'M10 15V5M5 10l5-5 5 5',
  home: 'M3 9.5 10 3l7 6.5M5 8v9h4v-5h2v5h4V8',
  save: 'M4 3h10l3 3v11H4zM7 3v4h6V3M7 17v-6h7v6',
  plus: 'M10 4v12M4 10h12',
  cut: 'M7 7 15 16M13 7l-8 9M6 6a2 2 0 1 1-3 0 2 2 0 0 1 3 0zM17 6a2 2 0 1 1-3 0 2 2 0 0 1 3 0z',
  copy: 'M7 7h9v10H7zM4 13V3h9',
  paste: 'M6 4H4v14h12V4h-2M7 2h6v4H7z',
  'arrow-up': 'M10 16V4M5 9l5-5 5 5',
  'arrow-down': 'M10 4v12M5 11l5 5 5-5',
  run: 'M6 4l10 6-10 6z',
  stop: 'M5 5h10v10H5z',
  restart: 'M15.5 7A6 6 0 1 0 16 11M16 3v4h-4',
  'run-all': 'M3 4l7 6-7 6zM10 4l7 6-7 6z',
  refresh: 'M15.5 7A6 6 0 1 0 16 11M16 3v4h-4',
};

const FILLED = new Set(['directory', 'run', 'stop', 'run-all']);

const COLORS: Record<string, string> = { directory: '#e8a33d', notebook: '#f37726' };

/** The attributes of an icon's one `<path>`, in order. */
export function iconPathAttributes(kind: string): [string, string][] {
  const d = PATHS[kind] ?? PATHS.file ?? '';
  const color = COLORS[kind] ?? 'currentColor';
  if (FILLED.has(kind))
    return [
      ['d', d],
      ['fill', color],
    ];
  return [
    ['d', d],
    ['fill', 'none'],
    ['stroke', color],
    ['stroke-width', '1.5'],
    ['stroke-linejoin', 'round'],
  ];
}
