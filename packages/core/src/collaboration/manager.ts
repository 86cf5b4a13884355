import { randomUUID } from 'node:crypto';
import path from 'node:path';
import * as Y from 'yjs';
import type { ContentsManager } from '../contents/manager.js';
import { normalizeApiPath } from '../contents/paths.js';
import { badRequest, notFound } from '../errors.js';
import { stableJson } from './cell-match.js';
import { mergeDisk } from './disk-merge.js';
import { DocumentFile } from './document-file.js';
import { FileIdIndex } from './file-ids.js';
import { CLOSE } from './protocol.js';
import { DISK_ORIGIN, Room, type RoomLimits, SERVER_ORIGIN } from './room.js';
import { type DocumentKind, documentKind, SharedDocument } from './shared-document.js';
import { UpdateLog } from './update-log.js';

export interface CollaborationOptions extends Partial<RoomLimits> {
  contents: ContentsManager;
  /** Where the file-id index and the rooms' update logs live (the server's data directory). */
  dataDir: string;
  /** Save a document this long after its last change. Default 1000 ms. */
  saveDelayMs?: number;
  /** Where a file cannot be watched (a network file system), look for changes this often; 0 = never. Default 1000 ms. */
  pollMs?: number;
  /** Drop a document from memory this long after its last client left. Default 60 s. */
  idleMs?: number;
  warn?: (message: string) => void;
}

export const COLLABORATION_DEFAULTS = {
  saveDelayMs: 1000,
  pollMs: 1000,
  idleMs: 60_000,
  maxDocumentBytes: 64 * 1024 * 1024,
  maxBufferedBytes: 16 * 1024 * 1024,
} as const;

const FILE_ID = /^[0-9a-f-]{36}$/;

/**
 * The shared documents of one server (JupyterLab's real-time collaboration model): one room per
 * open file, keyed `<format>:<type>:<fileId>`, created on first connection, dropped from memory
 * `idleMs` after its last client left and nothing runs into it.
 */
export class CollaborationManager {
  /** Identifies this server's document history to clients (`sessionId` of the session route). */
  readonly sessionId = randomUUID();
  readonly fileIds: FileIdIndex;
  readonly #options: Required<Omit<CollaborationOptions, keyof RoomLimits>> & RoomLimits;
  readonly #rooms = new Map<string, Promise<Room>>();
  readonly #idleTimers = new Map<string, NodeJS.Timeout>();
  readonly #dir: string;
  #closed = false;

  constructor(options: CollaborationOptions) {
    this.#options = { ...COLLABORATION_DEFAULTS, warn: () => {}, ...options };
    this.#dir = path.join(options.dataDir, 'collaboration');
    this.fileIds = new FileIdIndex(path.join(this.#dir, 'file-ids.json'));
  }

  /** `PUT /api/collaboration/session/<path>`: the file's id (`created` when it had none). */
  async session(rawPath: string, format: string, type: string): Promise<{ fileId: string; created: boolean }> {
    const kind = documentKind(format, type);
    const apiPath = normalizeApiPath(rawPath);
    const known = this.fileIds.getId(apiPath);
    // The file must exist and be of that type (the contents API's own 404/400).
    await this.#options.contents.get(apiPath, { content: false, type: kind === 'json:notebook' ? 'notebook' : 'file' });
    if (known) return { fileId: known, created: false };
    return { fileId: await this.fileIds.index(apiPath), created: true };
  }

  /** Parses `<format>:<type>:<fileId>`: a 400 when malformed, a 404 for an unknown file id. */
  checkRoomId(roomId: string): { kind: DocumentKind; fileId: string } {
    const parts = roomId.split(':');
    if (parts.length !== 3 || !FILE_ID.test(parts[2] ?? ''))
      throw badRequest(`Invalid room id: ${roomId.slice(0, 80)}`);
    const [format, type, fileId] = parts as [string, string, string];
    const kind = documentKind(format, type);
    if (this.fileIds.getPath(fileId) === undefined) throw notFound(`Unknown file id: ${fileId}`);
    return { kind, fileId };
  }

  /** The room of `<format>:<type>:<fileId>`, loaded on first use. */
  async room(roomId: string): Promise<Room> {
    if (this.#closed) throw notFound('Collaboration is shutting down');
    const { kind, fileId } = this.checkRoomId(roomId);
    const id = `${kind}:${fileId}`;
    clearTimeout(this.#idleTimers.get(id));
    let room = this.#rooms.get(id);
    const loaded = room !== undefined;
    if (!room) {
      room = this.#open(id, kind, fileId);
      this.#rooms.set(id, room);
      room.catch(() => this.#rooms.delete(id));
    }
    const opened = await room;
    if (loaded) await opened.refresh();
    if (opened.closed) {
      this.#rooms.delete(id);
      return this.room(roomId);
    }
    // Dropped later unless a client connects or a run holds it (the timer checks again when it fires).
    if (opened.idle) this.#onIdle(id, opened);
    return opened;
  }

  /** Rooms in memory now. */
  get openRooms(): number {
    return this.#rooms.size;
  }

  /** A rename through the contents API: ids (and so rooms) follow the file. */
  async renamed(from: string, to: string): Promise<void> {
    await this.fileIds.renamed(normalizeApiPath(from), normalizeApiPath(to));
  }

  /** A delete through the contents API: the ids under that path are forgotten (rooms close on their next look at the disk). */
  async deleted(gone: string): Promise<void> {
    await this.fileIds.deleted(normalizeApiPath(gone));
  }

  /** `POST /api/contents/<path>/trust` signed the file: its open room trusts every cell too. */
  async trusted(rawPath: string): Promise<void> {
    const fileId = this.fileIds.getId(normalizeApiPath(rawPath));
    const room = fileId === undefined ? undefined : this.#rooms.get(`json:notebook:${fileId}`);
    (await room?.catch(() => undefined))?.trustAll();
  }

  /** Saves every document and closes every room. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    const rooms = await Promise.allSettled([...this.#rooms.values()]);
    await Promise.all(rooms.map((r) => (r.status === 'fulfilled' ? r.value.close() : undefined)));
    this.#rooms.clear();
  }

  async #open(id: string, kind: DocumentKind, fileId: string): Promise<Room> {
    const pathNow = () => this.fileIds.getPath(fileId);
    const base = path.join(this.#dir, `${fileId}.${kind.replace(':', '-')}`);
    const log = new UpdateLog(`${base}.ylog`);
    const file = new DocumentFile(this.#options.contents, `${base}.json`, kind);
    const document = new SharedDocument(kind);
    let records = 0;
    try {
      for (const record of log.read()) {
        Y.applyUpdate(document.ydoc, record);
        records++;
      }
    } catch (error) {
      this.#options.warn(`The update log of ${id} is damaged, reloading from the file: ${String(error)}`);
      document.dispose();
      log.remove();
      return this.#open(id, kind, fileId);
    }
    const startPath = pathNow();
    if (startPath === undefined) throw notFound(`Unknown file id: ${fileId}`);
    const disk = await file.load(startPath);
    const room = new Room({
      ...this.#options,
      id,
      document,
      file,
      log,
      path: pathNow,
      onIdle: (r) => this.#onIdle(id, r),
    });
    // A new room has no runs (a run holds its room open): a running mark or an input prompt in
    // the log was left by a server that stopped mid-run.
    document.endStaleRuns(SERVER_ORIGIN);
    let exact = true; // the document equals the file
    let diffBase: unknown = null; // what later changes on disk are diffed against (null: the document as it is)
    if (records === 0 || document.empty) {
      if (records === 0) log.compact(new Uint8Array([0, 0])); // an empty update: the log starts here
      document.setContent(disk.content, DISK_ORIGIN);
    } else if (file.hash !== disk.hash) {
      // Changed on disk while no room had it open: the file wins (docs/collaboration.md).
      ({ exact, base: diffBase } = mergeDisk(document, null, disk.content, DISK_ORIGIN));
    } else if (stableJson(document.content()) !== stableJson(disk.content)) {
      exact = false;
      diffBase = disk.content;
    }
    if (!exact) room.markDirty(); // edits logged but not saved before the server stopped
    room.trust?.fromFile(disk.content, exact);
    await file.remember(disk.hash);
    await room.loaded(diffBase ?? document.snapshot());
    return room;
  }

  #onIdle(id: string, room: Room): void {
    clearTimeout(this.#idleTimers.get(id));
    if (room.closed) {
      this.#rooms.delete(id);
      return;
    }
    const timer = setTimeout(() => {
      this.#idleTimers.delete(id);
      if (!room.idle || this.#closed) return;
      this.#rooms.delete(id);
      void room.close(CLOSE.goingAway, 'Document closed').catch(() => undefined);
    }, this.#options.idleMs);
    timer.unref();
    this.#idleTimers.set(id, timer);
  }
}
