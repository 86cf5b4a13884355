import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { awarenessMessage, CLOSE, decodeClientMessage, syncStep1, syncStep2 } from './protocol.js';
import type { RoomClient } from './room.js';

/** The room id JupyterLab's collaboration extension joins to see who else is here. */
export const GLOBAL_AWARENESS_ROOM = 'JupyterLab:globalAwareness';

/**
 * A room with presence and no document: jupyter-collaboration's transient room that JupyterLab's
 * `@jupyter/collaboration-extension:rtcGlobalAwareness` joins (each user's name, colour and the
 * document they look at). Awareness states are relayed to every client and dropped when their
 * client leaves. The sync handshake is answered with an empty document and document updates are
 * ignored: nothing here is stored, so nothing grows with what clients send.
 */
export class AwarenessRoom {
  readonly awareness: awarenessProtocol.Awareness;
  readonly #doc = new Y.Doc();
  readonly #clients = new Map<RoomClient, Set<number>>();
  readonly #maxBufferedBytes: number;
  #closed = false;

  constructor(options: { maxBufferedBytes: number }) {
    this.#maxBufferedBytes = options.maxBufferedBytes;
    this.awareness = new awarenessProtocol.Awareness(this.#doc);
    this.awareness.setLocalState(null); // the server is no participant
    this.awareness.on('update', (change: AwarenessChange, origin: unknown) => this.#onAwareness(change, origin));
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  connect(client: RoomClient): { receive(data: Uint8Array): void; disconnect(): void } {
    if (this.#closed) {
      client.close(CLOSE.goingAway, 'Server is shutting down');
      return { receive: () => {}, disconnect: () => {} };
    }
    this.#clients.set(client, new Set());
    this.#send(client, syncStep1(this.#doc));
    const states = [...this.awareness.getStates().keys()];
    if (states.length > 0) this.#send(client, awarenessMessage(this.awareness, states));
    return { receive: (data) => this.#receive(client, data), disconnect: () => this.#disconnect(client) };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const client of [...this.#clients.keys()]) this.#drop(client, CLOSE.goingAway, 'Server is shutting down');
    this.awareness.destroy();
    this.#doc.destroy();
  }

  #receive(client: RoomClient, data: Uint8Array): void {
    if (!this.#clients.has(client)) return;
    let message: ReturnType<typeof decodeClientMessage>;
    try {
      message = decodeClientMessage(data);
    } catch {
      this.#drop(client, CLOSE.malformed, 'Malformed message');
      return;
    }
    if (message.type === 'sync-step1') this.#send(client, syncStep2(this.#doc, message.stateVector));
    else if (message.type === 'query-awareness') {
      this.#send(client, awarenessMessage(this.awareness, [...this.awareness.getStates().keys()]));
    } else if (message.type === 'awareness') {
      try {
        awarenessProtocol.applyAwarenessUpdate(this.awareness, message.update, client);
      } catch {
        this.#drop(client, CLOSE.malformed, 'Malformed message: bad awareness update');
      }
    }
    // 'update' and 'raw': this room has no document to change or save
  }

  #onAwareness(change: AwarenessChange, origin: unknown): void {
    const controlled = this.#clients.get(origin as RoomClient);
    if (controlled) {
      for (const id of change.added) controlled.add(id);
      for (const id of change.removed) controlled.delete(id);
    }
    const message = awarenessMessage(this.awareness, [...change.added, ...change.updated, ...change.removed]);
    for (const client of this.#clients.keys()) this.#send(client, message);
  }

  #send(client: RoomClient, data: Uint8Array): void {
    if (client.bufferedAmount > this.#maxBufferedBytes) {
      this.#drop(client, CLOSE.notReading, 'Client is not reading: too much unsent data');
      return;
    }
    try {
      client.send(data);
    } catch {
      this.#disconnect(client);
    }
  }

  #drop(client: RoomClient, code: number, reason: string): void {
    this.#disconnect(client);
    try {
      client.close(code, reason);
    } catch {
      // already gone
    }
  }

  #disconnect(client: RoomClient): void {
    const controlled = this.#clients.get(client);
    if (!controlled) return;
    this.#clients.delete(client);
    if (controlled.size > 0 && !this.#closed) {
      awarenessProtocol.removeAwarenessStates(this.awareness, [...controlled], null);
    }
  }
}

interface AwarenessChange {
  added: number[];
  updated: number[];
  removed: number[];
}
