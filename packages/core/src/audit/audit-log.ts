import fs from 'node:fs';
import { forbidden } from '../errors.js';

/** One audited action: its name and what it touched; the writer adds `time`. */
export interface AuditEvent {
  readonly event: string;
  readonly [field: string]: string | number | boolean | null | undefined | readonly string[];
}

export interface AuditLogOptions {
  /** The log file, or `-` for stderr. */
  path: string;
  /** Rotate before a line would make the file larger than this; 0 = never rotate. */
  maxBytes: number;
  /** Rotated files kept (`<path>.1` newest … `<path>.<backups>` oldest); 0 = the full file is emptied. */
  backups: number;
  /** Told once when lines start being lost (a full disk), and once when writing works again. */
  onError: (message: string) => void;
  /** The clock, for tests. */
  now?: () => Date;
}

/**
 * An append-only JSON-lines audit log. Each line is written with one `write(2)` on a file opened
 * `O_APPEND`, synchronously, so lines never interleave or tear within this process, reach the
 * kernel before the action's response goes out, and a rotation (rename the files along, open a
 * new one) cannot happen between two halves of a line. One process owns the file.
 */
export class AuditLog {
  readonly #options: AuditLogOptions;
  readonly #now: () => Date;
  #fd: number;
  #size = 0;
  /** Whether the file is a regular file (rotation makes sense) rather than stderr or a device. */
  #rotatable = false;
  #failing = false;
  #closed = false;

  /** Opens the log at once: a path that cannot be written throws here, at start, with the reason. */
  constructor(options: AuditLogOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
    this.#fd = options.path === '-' ? 2 : this.#open();
  }

  /** Appends one line for `event`, with `time` first. Never throws: a failed write is reported once. */
  write(event: AuditEvent): void {
    if (this.#closed) return;
    const line = `${JSON.stringify({ time: this.#now().toISOString(), ...event })}\n`;
    const bytes = Buffer.from(line, 'utf8');
    try {
      if (this.#fd < 0) this.#fd = this.#open(); // a rotation failed half-way: try again
      if (
        this.#rotatable &&
        this.#options.maxBytes > 0 &&
        this.#size > 0 &&
        this.#size + bytes.length > this.#options.maxBytes
      ) {
        this.#rotate();
      }
      let written = 0;
      while (written < bytes.length) written += fs.writeSync(this.#fd, bytes, written);
      this.#size += bytes.length;
      if (this.#failing) {
        this.#failing = false;
        this.#options.onError(`Audit log ${this.#options.path}: writing again`);
      }
    } catch (error) {
      if (!this.#failing) {
        this.#failing = true;
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        this.#options.onError(`Audit log ${this.#options.path}: lines are being lost (${code})`);
      }
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#fd > 2) fs.closeSync(this.#fd);
  }

  #open(): number {
    let fd: number;
    try {
      fd = fs.openSync(this.#options.path, 'a', 0o600);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw forbidden(`Cannot open the audit log ${this.#options.path} for writing (${code})`);
    }
    const stat = fs.fstatSync(fd);
    this.#rotatable = stat.isFile();
    this.#size = stat.isFile() ? stat.size : 0;
    return fd;
  }

  /** `<path>.<n-1>` → `<path>.<n>` …, `<path>` → `<path>.1`, then a fresh `<path>`. */
  #rotate(): void {
    const { path, backups } = this.#options;
    fs.closeSync(this.#fd);
    this.#fd = -1;
    if (backups > 0) {
      for (let n = backups - 1; n >= 1; n--) renameIfPresent(`${path}.${n}`, `${path}.${n + 1}`);
      renameIfPresent(path, `${path}.1`);
    } else {
      fs.truncateSync(path, 0);
    }
    this.#fd = this.#open();
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
