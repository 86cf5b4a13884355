import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { awarenessMessage, CLOSE, decodeClientMessage } from './protocol.js';
import type { RoomClient } from './room.js';

/** The room jupyter-collaboration's JupyterLab extension joins to show who else is here. */
export const GLOBAL_AWARENESS_ROOM = 'JupyterLab:globalAwareness';

type AwarenessChange = { added: number[]; updated: number[]; removed: number[] };

/**
 * A room with awareness only, no document: jupyter-collaboration's `JupyterLab:globalAwareness`,
 * where each JupyterLab page announces its user (name, colour, current document) and sees the
 * others'. States are relayed to every client and removed when their client leaves; document
 * messages are answered with an empty document and otherwise ignored.
 */
export class AwarenessRoom {
  readonly id = GLOBAL_AWARENESS_ROOM;
  readonly awareness = new awarenessProtocol.Awareness(new Y.Doc());
  readonly #clients = new Map<RoomClient, Set<number>>();
  readonly #maxBufferedBytes: number;

  constructor(maxBufferedBytes: number) {
    this.#maxBufferedBytes = maxBufferedBytes;
    this.awareness.setLocalState(null); // the server is no participant
    this.awareness.on('update', (change: AwarenessChange, origin: unknown) => {
      const controlled = this.#clients.get(origin as RoomClient);
      if (controlled) {
        for (const id of change.added) controlled.add(id);
        for (const id of change.removed) controlled.delete(id);
      }
      const message = awarenessMessage(this.awareness, [...change.added, ...change.updated, ...change.removed]);
      for (const client of this.#clients.keys()) this.#send(client, message);
    });
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  connect(client: RoomClient): { receive(data: Uint8Array): void; disconnect(): void } {
    this.#clients.set(client, new Set());
    const states = [...this.awareness.getStates().keys()];
    if (states.length > 0) this.#send(client, awarenessMessage(this.awareness, states));
    return { receive: (data) => this.#receive(client, data), disconnect: () => this.#disconnect(client) };
  }

  close(): void {
    for (const client of [...this.#clients.keys()]) this.#drop(client, CLOSE.goingAway, 'Server shutting down');
    this.awareness.destroy();
  }

  #receive(client: RoomClient, data: Uint8Array): void {
    if (!this.#clients.has(client)) return;
    try {
      const message = decodeClientMessage(data);
      if (message.type === 'awareness') awarenessProtocol.applyAwarenessUpdate(this.awareness, message.update, client);
      else if (message.type === 'query-awareness') {
        this.#send(client, awarenessMessage(this.awareness, [...this.awareness.getStates().keys()]));
      }
    } catch {
      this.#drop(client, CLOSE.malformed, 'Malformed message');
    }
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
      // already closed
    }
  }

  #disconnect(client: RoomClient): void {
    const controlled = this.#clients.get(client);
    if (!controlled) return;
    this.#clients.delete(client);
    if (controlled.size > 0) awarenessProtocol.removeAwarenessStates(this.awareness, [...controlled], null);
  }
}
