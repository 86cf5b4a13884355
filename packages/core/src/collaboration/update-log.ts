import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * A room's append-only log of Yjs updates on disk: each update is written (synchronously, before
 * the room relays it) as a 4-byte little-endian length and the bytes. After a crash or a restart
 * the document is rebuilt by applying every complete record; a record torn by a crash mid-write
 * is ignored (the client that sent it has not seen it acknowledged by anyone else yet, and resends
 * it on reconnect as part of the y-websocket sync). `compact` replaces the log with one record.
 */
export class UpdateLog {
  readonly file: string;
  #fd: number | undefined;
  #bytes = 0;

  constructor(file: string) {
    this.file = file;
    mkdirSync(path.dirname(file), { recursive: true });
  }

  /** Bytes appended since the log was last compacted or opened. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Every complete record in the log (none when there is no log). */
  read(): Uint8Array[] {
    let data: Buffer;
    try {
      data = readFileSync(this.file);
    } catch {
      return [];
    }
    const records: Uint8Array[] = [];
    let offset = 0;
    while (offset + 4 <= data.length) {
      const length = data.readUInt32LE(offset);
      if (offset + 4 + length > data.length) break; // torn tail
      records.push(data.subarray(offset + 4, offset + 4 + length));
      offset += 4 + length;
    }
    this.#bytes = data.length;
    return records;
  }

  append(update: Uint8Array): void {
    this.#fd ??= openSync(this.file, 'a', 0o600);
    const header = Buffer.alloc(4);
    header.writeUInt32LE(update.length, 0);
    writeSync(this.#fd, Buffer.concat([header, update]));
    this.#bytes += 4 + update.length;
  }

  /** Replaces the log with one record holding the whole document state (temp file + rename). */
  compact(state: Uint8Array): void {
    this.close();
    const temp = `${this.file}.compact`;
    const header = Buffer.alloc(4);
    header.writeUInt32LE(state.length, 0);
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, Buffer.concat([header, state]));
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
    this.#bytes = 4 + state.length;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  remove(): void {
    this.close();
    rmSync(this.file, { force: true });
  }
}
