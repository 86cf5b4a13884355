import * as awarenessProtocol from 'y-protocols/awareness';
import * as Y from 'yjs';
import { awarenessMessage, CLOSE, decodeClientMessage, syncStep1, syncStep2 } from './protocol.js';
import { type AwarenessChange, type RoomClient, RoomClients } from './room-clients.js';

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
  readonly #clients: RoomClients;
  #closed = false;

  constructor(options: { maxBufferedBytes: number }) {
    this.awareness = new awarenessProtocol.Awareness(this.#doc);
    this.awareness.setLocalState(null); // the server is no participant
    const { awareness } = this;
    this.#clients = new RoomClients({
      awareness,
      maxBufferedBytes: options.maxBufferedBytes,
      closed: () => this.#closed,
    });
    awareness.on('update', (change: AwarenessChange, origin: unknown) =>
      this.#clients.awarenessChanged(change, origin),
    );
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  connect(client: RoomClient): { receive(data: Uint8Array): void; disconnect(): void } {
    if (this.#closed) {
      client.close(CLOSE.goingAway, 'Server is shutting down');
      return { receive: () => {}, disconnect: () => {} };
    }
    this.#clients.add(client);
    this.#clients.send(client, syncStep1(this.#doc));
    const states = [...this.awareness.getStates().keys()];
    if (states.length > 0) this.#clients.send(client, awarenessMessage(this.awareness, states));
    return { receive: (data) => this.#receive(client, data), disconnect: () => this.#clients.disconnect(client) };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#clients.dropAll(CLOSE.goingAway, 'Server is shutting down');
    this.awareness.destroy();
    this.#doc.destroy();
  }

  #receive(client: RoomClient, data: Uint8Array): void {
    if (!this.#clients.has(client)) return;
    let message: ReturnType<typeof decodeClientMessage>;
    try {
      message = decodeClientMessage(data);
    } catch {
      this.#clients.drop(client, CLOSE.malformed, 'Malformed message');
      return;
    }
    if (message.type === 'sync-step1') this.#clients.send(client, syncStep2(this.#doc, message.stateVector));
    else if (message.type === 'query-awareness') {
      this.#clients.send(client, awarenessMessage(this.awareness, [...this.awareness.getStates().keys()]));
    } else if (message.type === 'awareness') {
      try {
        awarenessProtocol.applyAwarenessUpdate(this.awareness, message.update, client);
      } catch {
        this.#clients.drop(client, CLOSE.malformed, 'Malformed message: bad awareness update');
      }
    }
    // 'update' and 'raw': this room has no document to change or save
  }
}
