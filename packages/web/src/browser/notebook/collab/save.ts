import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import type { WebsocketProvider } from 'y-websocket';

/** jupyter-collaboration's raw string channel (y-websocket's type 2), on which a client asks for a save. */
const MESSAGE_RAW = 2;
const SAVE_TIMEOUT_MS = 30_000;

type Handler = (encoder: encoding.Encoder, decoder: decoding.Decoder) => void;

/**
 * Asks the room to save the shared document now (the server saves it by itself a moment after
 * every change; this is the page's Save): `save` and an id on the raw channel, answered
 * `{"type": "save", "responseTo": id, "status": "success" | "failed"}` (docs/collaboration.md).
 */
export class RoomSaver {
  private next = 1;
  private readonly waiting = new Map<number, (ok: boolean) => void>();

  constructor(private readonly provider: WebsocketProvider) {
    // y-websocket 1 reads type 2 as its auth message; the room uses it for these answers.
    const handlers = (provider as unknown as { messageHandlers: Handler[] }).messageHandlers;
    handlers[MESSAGE_RAW] = (_encoder, decoder) => this.answer(decoding.readVarString(decoder));
  }

  /** Resolves true once the server wrote the file, false if it could not (or did not answer). */
  save(): Promise<boolean> {
    const ws = this.provider.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve(false);
    const id = this.next++;
    const encoder = encoding.createEncoder();
    encoding.writeVarUint(encoder, MESSAGE_RAW);
    encoding.writeVarString(encoder, 'save');
    encoding.writeVarUint(encoder, id);
    ws.send(encoding.toUint8Array(encoder));
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, false), SAVE_TIMEOUT_MS);
      this.waiting.set(id, (ok) => {
        clearTimeout(timer);
        resolve(ok);
      });
    });
  }

  private answer(text: string): void {
    let message: { type?: unknown; responseTo?: unknown; status?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (message.type === 'save' && typeof message.responseTo === 'number')
      this.settle(message.responseTo, message.status === 'success');
  }

  private settle(id: number, ok: boolean): void {
    const resolve = this.waiting.get(id);
    this.waiting.delete(id);
    resolve?.(ok);
  }
}
