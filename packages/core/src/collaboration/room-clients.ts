import * as awarenessProtocol from 'y-protocols/awareness';
import { awarenessMessage, CLOSE } from './protocol.js';

/** One client's end of a room, as the transport (a WebSocket) provides it. */
export interface RoomClient {
  send(data: Uint8Array): void;
  close(code: number, reason: string): void;
  /** Bytes handed to `send` not yet written to the network. */
  readonly bufferedAmount: number;
}

/** What y-protocols' Awareness reports on `update`. */
export interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}

export interface RoomClientsOptions {
  awareness: awarenessProtocol.Awareness;
  /** A client with more than this many bytes unsent is disconnected (it does not read). */
  maxBufferedBytes: number;
  /** Whether the room is closed: its clients' awareness states are then left as they are. */
  closed: () => boolean;
  /** Told of each client closed for a reason other than the server going away. */
  warn?: (message: string) => void;
  /** Called after a client left. */
  left?: () => void;
}

/**
 * The clients of a room (a shared document's, or the awareness-only one) and the awareness
 * states each controls: sending to them, closing one that does not read or breaks the protocol,
 * and removing its states once it left, so the others see it go.
 */
export class RoomClients {
  readonly #options: RoomClientsOptions;
  readonly #clients = new Map<RoomClient, Set<number>>();

  constructor(options: RoomClientsOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#clients.size;
  }

  has(client: RoomClient): boolean {
    return this.#clients.has(client);
  }

  add(client: RoomClient): void {
    this.#clients.set(client, new Set());
  }

  /** Sends `data` to `client`, unless it does not read: then it is closed instead. */
  send(client: RoomClient, data: Uint8Array): void {
    if (client.bufferedAmount > this.#options.maxBufferedBytes) {
      this.drop(client, CLOSE.notReading, 'Client is not reading: too much unsent data');
      return;
    }
    try {
      client.send(data);
    } catch {
      this.disconnect(client);
    }
  }

  /** `send` to every client but `except`. */
  broadcast(data: Uint8Array, except?: unknown): void {
    for (const client of this.#clients.keys()) if (client !== except) this.send(client, data);
  }

  /** Closes every client with `code` (the room is closing). */
  dropAll(code: number, reason: string): void {
    for (const client of [...this.#clients.keys()]) this.drop(client, code, reason);
  }

  /** Disconnects `client` and closes its socket with `code`. */
  drop(client: RoomClient, code: number, reason: string): void {
    if (!this.#clients.has(client)) return;
    if (code !== CLOSE.goingAway) this.#options.warn?.(`closing a client (${code}): ${reason}`);
    this.disconnect(client);
    try {
      client.close(code, reason.slice(0, 120)); // a close reason is at most 123 bytes
    } catch {
      // already closed
    }
  }

  /** `client` left: the awareness states it controlled are removed (the others are told). */
  disconnect(client: RoomClient): void {
    const controlled = this.#clients.get(client);
    if (!controlled) return;
    this.#clients.delete(client);
    if (controlled.size > 0 && !this.#options.closed()) {
      awarenessProtocol.removeAwarenessStates(this.#options.awareness, [...controlled], null);
    }
    this.#options.left?.();
  }

  /** The awareness changed (`origin`: the client whose update it was): remembered, relayed to everyone. */
  awarenessChanged(change: AwarenessChange, origin: unknown): void {
    const controlled = this.#clients.get(origin as RoomClient);
    if (controlled) {
      for (const id of change.added) controlled.add(id);
      for (const id of change.removed) controlled.delete(id);
    }
    const { awareness } = this.#options;
    const message = awarenessMessage(awareness, [...change.added, ...change.updated, ...change.removed]);
    this.broadcast(message);
  }
}
