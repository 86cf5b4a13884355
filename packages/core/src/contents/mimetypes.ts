/** Extension -> MIME type, the common subset of Python's `mimetypes` table that notebook users meet. */
const TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.py': 'text/x-python',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.rst': 'text/x-rst',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.sh': 'application/x-sh',
  '.c': 'text/x-c',
  '.h': 'text/x-c',
  '.cpp': 'text/x-c',
  '.java': 'text/x-java',
  '.r': 'text/x-r',
  '.jl': 'text/x-julia',
  '.tex': 'application/x-tex',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.ico': 'image/vnd.microsoft.icon',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.tar': 'application/x-tar',
  '.wasm': 'application/wasm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/x-wav',
  '.ogg': 'audio/ogg',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.parquet': 'application/vnd.apache.parquet',
  '.h5': 'application/x-hdf5',
};

/** Compression suffixes: Python reports them as the *encoding* of the type inside (`.tar.gz`). */
const ENCODINGS: Record<string, string> = {
  '.gz': 'gzip',
  '.bz2': 'bzip2',
  '.xz': 'xz',
  '.Z': 'compress',
  '.br': 'br',
};
const SUFFIXES: Record<string, string> = {
  '.tgz': '.tar.gz',
  '.taz': '.tar.gz',
  '.tz': '.tar.gz',
  '.tbz2': '.tar.bz2',
  '.txz': '.tar.xz',
};

function extension(name: string): string | null {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? null : name.slice(dot);
}

/**
 * Python's `mimetypes.guess_type`: `[type, encoding]` from the name, so `data.tar.gz` is an
 * `application/x-tar` with encoding `gzip` and a bare `x.gz` has no type, only the encoding.
 */
export function guessType(name: string): { type: string | null; encoding: string | null } {
  let base = name;
  let ext = extension(base);
  const expanded = ext ? SUFFIXES[ext.toLowerCase()] : undefined;
  if (ext && expanded) {
    base = base.slice(0, -ext.length) + expanded;
    ext = extension(base);
  }
  let encoding: string | null = null;
  if (ext && ENCODINGS[ext] !== undefined) {
    encoding = ENCODINGS[ext] ?? null;
    base = base.slice(0, -ext.length);
    ext = extension(base);
  }
  return { type: ext ? (TYPES[ext.toLowerCase()] ?? null) : null, encoding };
}

/** The MIME type of the contents model (`mimetype`): the type part of `guessType`. */
export function guessMimeType(name: string): string | null {
  return guessType(name).type;
}
