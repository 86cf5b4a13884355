import * as decoding from 'lib0/decoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { NbserveError } from '../errors.js';
import { CellTrust } from './cell-trust.js';
import { mergeDisk } from './disk-merge.js';
import { DiskWatch } from './disk-watch.js';
import type { DocumentFile } from './document-file.js';
import {
  awarenessMessage,
  CLOSE,
  decodeClientMessage,
  rawMessage,
  syncStep1,
  syncStep2,
  syncUpdate,
} from './protocol.js';
import { type AwarenessChange, type RoomClient, RoomClients } from './room-clients.js';
import type { SharedDocument } from './shared-document.js';
import type { UpdateLog } from './update-log.js';
import { isTextOnlyUpdate, notebookProblem } from './validate.js';

export type { RoomClient };

export interface RoomLimits {
  /** Largest encoded document state; an update past it is refused. */
  maxDocumentBytes: number;
  /** A client with more than this many bytes unsent is disconnected (it does not read). */
  maxBufferedBytes: number;
}

export interface RoomOptions extends RoomLimits {
  id: string;
  document: SharedDocument;
  file: DocumentFile;
  log: UpdateLog;
  /** The file's path now (ids follow renames); undefined once it was deleted. */
  path: () => string | undefined;
  saveDelayMs: number;
  /** Look at the file this often where it cannot be watched (a network file system); 0 = never. */
  pollMs: number;
  warn: (message: string) => void;
  /** Called when the last client left and nothing holds the room. */
  onIdle: (room: Room) => void;
}

/** Origins of changes the server makes itself (not relayed back as client edits). */
export const DISK_ORIGIN = Symbol('disk');
export const SERVER_ORIGIN = Symbol('server');

/**
 * One shared document and the clients editing it, speaking the y-websocket sync and awareness
 * protocol. Every update is validated (a notebook stays a valid notebook, the document stays under
 * its size limit), appended to the log, applied, then relayed; the document is saved through the
 * contents API a little after the last change and reloaded when the file changes on disk.
 */
export class Room {
  readonly id: string;
  readonly document: SharedDocument;
  readonly awareness: awarenessProtocol.Awareness;
  /** The notebook's per-cell trust, marked on every save (undefined for a text file). */
  readonly trust: CellTrust | undefined;
  readonly #options: RoomOptions;
  readonly #clients: RoomClients;
  #holds = 0;
  #size: number;
  #saveTimer: NodeJS.Timeout | undefined;
  readonly #disk: DiskWatch;
  /** The file as last loaded or saved (cells with their shared ids): what a change on disk is diffed against. */
  #base: unknown = null;
  #saving: Promise<void> = Promise.resolve();
  #dirty = false;
  #closed = false;
  #closing: Promise<void> | undefined;

  constructor(options: RoomOptions) {
    this.#options = options;
    this.id = options.id;
    this.document = options.document;
    const doc = this.document.ydoc;
    this.#size = Y.encodeStateAsUpdate(doc).length;
    this.awareness = new awarenessProtocol.Awareness(doc);
    this.awareness.setLocalState(null); // the server is no participant
    doc.on('update', (update: Uint8Array, origin: unknown) => this.#onUpdate(update, origin));
    const notebook = this.document.notebook;
    const trust = notebook ? new CellTrust(notebook) : undefined;
    this.trust = trust;
    doc.on('afterTransaction', (tr: Y.Transaction) =>
      trust?.observe(tr, tr.origin === SERVER_ORIGIN ? 'server' : tr.origin === DISK_ORIGIN ? 'disk' : 'client'),
    );
    this.#clients = new RoomClients({
      awareness: this.awareness,
      maxBufferedBytes: options.maxBufferedBytes,
      closed: () => this.#closed,
      warn: (message) => options.warn(`Room ${this.id}: ${message}`),
      left: () => this.#maybeIdle(),
    });
    this.awareness.on('update', (change: AwarenessChange, origin: unknown) =>
      this.#clients.awarenessChanged(change, origin),
    );
    this.#disk = new DiskWatch(options.file, options.pollMs, () => void this.#poll());
  }

  /**
   * The document was loaded; `base` is the file it was loaded from (with the shared cell ids when
   * the document equals it). Starts watching the file, then looks at it once (a change made
   * before the watch began).
   */
  async loaded(base: unknown): Promise<void> {
    this.#base = base;
    this.document.shareHash(this.#options.file.hash, DISK_ORIGIN);
    await this.#poll();
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Encoded size of the document's state, as last measured (grows with each update). */
  get size(): number {
    return this.#size;
  }

  /** Adds a client; the returned functions feed it its messages and tell the room it left. */
  connect(client: RoomClient): { receive(data: Uint8Array): void; disconnect(): void } {
    this.#clients.add(client);
    this.#clients.send(client, syncStep1(this.document.ydoc));
    const states = [...this.awareness.getStates().keys()];
    if (states.length > 0) this.#clients.send(client, awarenessMessage(this.awareness, states));
    return {
      receive: (data) => this.#receive(client, data),
      disconnect: () => this.#clients.disconnect(client),
    };
  }

  /** Keeps the room in memory (a cell running into it) until the returned function is called. */
  hold(): () => void {
    this.#holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
      this.#maybeIdle();
    };
  }

  /** Saves now (waiting for a save in flight first). */
  async save(): Promise<void> {
    clearTimeout(this.#saveTimer);
    this.#saving = this.#saving.catch(() => undefined).then(() => this.#save());
    await this.#saving;
  }

  /** Saves what is unsaved, compacts the log and disconnects everyone (once, however often called). */
  close(code: number = CLOSE.goingAway, reason = 'Server shutting down'): Promise<void> {
    this.#closing ??= this.#close(code, reason);
    return this.#closing;
  }

  async #close(code: number, reason: string): Promise<void> {
    this.#disk.close();
    await this.#saving.catch(() => undefined); // a save in flight finishes first
    if (this.#dirty) {
      await this.save().catch((error) => this.#options.warn(`Saving ${this.id} failed: ${describe(error)}`));
    }
    this.#closed = true;
    clearTimeout(this.#saveTimer);
    this.#clients.dropAll(code, reason);
    try {
      this.#options.log.compact(Y.encodeStateAsUpdate(this.document.ydoc));
    } catch (error) {
      this.#options.warn(`Compacting the log of ${this.id} failed: ${describe(error)}`);
    }
    this.awareness.destroy();
    this.document.dispose();
  }

  #receive(client: RoomClient, data: Uint8Array): void {
    if (this.#closed || !this.#clients.has(client)) return;
    let message: ReturnType<typeof decodeClientMessage>;
    try {
      message = decodeClientMessage(data);
    } catch (error) {
      this.#clients.drop(client, CLOSE.malformed, `Malformed message: ${describe(error)}`);
      return;
    }
    switch (message.type) {
      case 'sync-step1':
        try {
          this.#clients.send(client, syncStep2(this.document.ydoc, message.stateVector));
        } catch {
          this.#clients.drop(client, CLOSE.malformed, 'Malformed message: bad state vector');
        }
        return;
      case 'update':
        this.#applyClientUpdate(client, message.update);
        return;
      case 'awareness':
        try {
          awarenessProtocol.applyAwarenessUpdate(this.awareness, message.update, client);
        } catch {
          this.#clients.drop(client, CLOSE.malformed, 'Malformed message: bad awareness update');
        }
        return;
      case 'query-awareness':
        this.#clients.send(client, awarenessMessage(this.awareness, [...this.awareness.getStates().keys()]));
        return;
      case 'raw':
        if (message.text === 'save') void this.#saveRequest(client, message.decoder);
        return;
    }
  }

  /** jupyter-collaboration's save request: `save`, an id; answered with `{type, responseTo, status}`. */
  async #saveRequest(client: RoomClient, decoder: decoding.Decoder): Promise<void> {
    const responseTo = readId(decoder);
    let status = 'success';
    await this.save().catch(() => {
      status = 'failed';
    });
    if (this.#clients.has(client)) this.#clients.send(client, rawMessage({ type: 'save', responseTo, status }));
  }

  #applyClientUpdate(client: RoomClient, update: Uint8Array): void {
    const doc = this.document.ydoc;
    const { maxDocumentBytes } = this.#options;
    if (this.#size + update.length > maxDocumentBytes) {
      this.#clients.drop(client, CLOSE.tooLarge, `Document too large: over ${maxDocumentBytes} bytes`);
      return;
    }
    try {
      const pending = doc.store.pendingStructs !== null || doc.store.pendingDs !== null;
      if (this.document.notebook && (pending || !isTextOnlyUpdate(doc, update))) {
        // A structural change: try it on a copy first, so an invalid one never reaches the log.
        const trial = new Y.Doc();
        Y.applyUpdate(trial, Y.encodeStateAsUpdate(doc));
        Y.applyUpdate(trial, update);
        const problem = notebookProblem(trial);
        const size = Y.encodeStateAsUpdate(trial).length;
        trial.destroy();
        if (problem !== null) {
          this.#clients.drop(client, CLOSE.invalid, `Update refused, the notebook would be invalid: ${problem}`);
          return;
        }
        if (size > maxDocumentBytes) {
          this.#clients.drop(client, CLOSE.tooLarge, `Document too large: over ${maxDocumentBytes} bytes`);
          return;
        }
        this.#size = size - update.length; // #onUpdate adds it back
      }
      Y.applyUpdate(doc, update, client);
    } catch (error) {
      this.#clients.drop(client, CLOSE.malformed, `Malformed update: ${describe(error)}`);
    }
  }

  /** Every change, from a client or the server itself: logged first, then relayed, then saved later. */
  #onUpdate(update: Uint8Array, origin: unknown): void {
    this.#size += update.length;
    this.#options.log.append(update);
    const message = syncUpdate(update);
    this.#clients.broadcast(message, origin);
    if (origin === DISK_ORIGIN) return; // the document equals the file again
    this.#dirty = true;
    this.#scheduleSave();
  }

  #maybeIdle(): void {
    if (!this.#closed && this.#clients.size === 0 && this.#holds === 0) this.#options.onIdle(this);
  }

  get idle(): boolean {
    return this.#clients.size === 0 && this.#holds === 0;
  }

  /**
   * "Trust notebook" (the file was just signed): every cell is trusted from now on. Saved again
   * when that changed something: unsaved edits, or a save that slipped in after the signing.
   */
  trustAll(): void {
    if (this.trust?.trustAll()) this.markDirty();
  }

  /** The document differs from the file (edits logged before a crash): save it soon. */
  markDirty(): void {
    this.#dirty = true;
    this.#scheduleSave();
  }

  #scheduleSave(): void {
    if (this.#closed) return;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = setTimeout(() => void this.save().catch(() => undefined), this.#options.saveDelayMs);
  }

  async #save(): Promise<void> {
    if (!this.#dirty || this.#closed) return;
    const path = this.#options.path();
    if (path === undefined) return;
    this.#dirty = false;
    try {
      const content = this.document.content();
      const snapshot = this.document.snapshot();
      const { changed, message } = await this.#options.file.save(path, this.trust?.mark(content) ?? content);
      if (changed) {
        this.#dirty = true; // until the file's change is merged
        await this.#mergeFromDisk(path);
      } else {
        this.#base = snapshot;
        this.document.shareHash(this.#options.file.hash, DISK_ORIGIN);
        if (message !== null) this.#options.warn(`Saved ${path}, not valid nbformat: ${message}`);
      }
      this.#compactIfLarge();
    } catch (error) {
      this.#dirty = true;
      this.#options.warn(`Saving ${path} failed: ${describe(error)}`);
      throw error;
    }
  }

  /**
   * Merges what another program wrote into the document (docs/collaboration.md, "Changes on
   * disk"): only the difference from the file as last loaded or saved.
   */
  async #mergeFromDisk(path: string): Promise<void> {
    const disk = await this.#options.file.loadReadable(path, this.#options.warn);
    if (disk === null || disk.hash === this.#options.file.hash) return;
    const merged = mergeDisk(this.document, this.#base, disk.content, DISK_ORIGIN);
    this.#base = merged.base;
    this.trust?.fromFile(disk.content, merged.exact);
    await this.#options.file.remember(disk.hash);
    this.document.shareHash(this.#options.file.hash, DISK_ORIGIN);
    if (!merged.exact) return this.markDirty(); // edits of the room's own go to the file
    this.#dirty = false;
    clearTimeout(this.#saveTimer);
  }

  /** Polls in the same queue as saves: a save and a look at the disk never interleave. */
  #poll(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#saving = this.#saving.catch(() => undefined).then(() => this.#pollOnce());
    return this.#saving;
  }

  /** Looks at the file now: a client joining sees what another program just wrote, not the last poll's. */
  refresh(): Promise<void> {
    return this.#poll().catch(() => undefined);
  }

  async #pollOnce(): Promise<void> {
    const path = this.#options.path();
    if (this.#closed) return;
    if (path === undefined) {
      // Deleted through the contents API. Not awaited: closing waits for this queue.
      void this.close(CLOSE.notFound, 'File is gone').then(() => this.#options.onIdle(this));
      return;
    }
    try {
      await this.#disk.follow(path);
      const changed = await this.#options.file.statChanged(path);
      this.#disk.present();
      if (changed) await this.#mergeFromDisk(path);
    } catch (error) {
      if (!(error instanceof NbserveError && error.kind === 'not-found')) return;
      // Gone for good, or only for a moment (renamed through the contents API, which then tells
      // the file ids; an editor that moves the old file away first): look again a little later.
      if (!this.#disk.gone()) return;
      // Not awaited: closing waits for this queue, which this poll is part of.
      void this.close(CLOSE.notFound, `File is gone: ${path}`).then(() => this.#options.onIdle(this));
    }
  }

  #compactIfLarge(): void {
    const log = this.#options.log;
    if (log.bytes > 1024 * 1024 && log.bytes > 4 * this.#size) {
      log.compact(Y.encodeStateAsUpdate(this.document.ydoc));
    }
  }
}

function readId(decoder: decoding.Decoder): number | null {
  try {
    return decoding.readVarUint(decoder);
  } catch {
    return null;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
