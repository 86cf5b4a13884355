import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import * as awarenessProtocol from 'y-protocols/awareness';
import * as syncProtocol from 'y-protocols/sync';
import type * as Y from 'yjs';

/** y-websocket's message types (https://github.com/yjs/y-websocket, `src/y-websocket.js`). */
export const MESSAGE_SYNC = 0;
export const MESSAGE_AWARENESS = 1;
/** jupyter-collaboration's extra channel: a JSON string, e.g. the client's `save` request. */
export const MESSAGE_RAW = 2;
export const MESSAGE_QUERY_AWARENESS = 3;

/**
 * WebSocket close codes a room uses. 4404/4400/4500 are jupyter-collaboration's; the others follow
 * their pattern (4000 + the HTTP status that says the same).
 */
export const CLOSE = {
  malformed: 4400,
  notFound: 4404,
  notReading: 4408,
  tooLarge: 4413,
  invalid: 4422,
  internal: 4500,
  goingAway: 1001,
} as const;

export function syncStep1(doc: Y.Doc): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeSyncStep1(encoder, doc);
  return encoding.toUint8Array(encoder);
}

export function syncStep2(doc: Y.Doc, stateVector: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeSyncStep2(encoder, doc, stateVector);
  return encoding.toUint8Array(encoder);
}

export function syncUpdate(update: Uint8Array): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_SYNC);
  syncProtocol.writeUpdate(encoder, update);
  return encoding.toUint8Array(encoder);
}

export function awarenessMessage(awareness: awarenessProtocol.Awareness, clients: number[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_AWARENESS);
  encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(awareness, clients));
  return encoding.toUint8Array(encoder);
}

export function rawMessage(json: unknown): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarUint(encoder, MESSAGE_RAW);
  encoding.writeVarString(encoder, JSON.stringify(json));
  return encoding.toUint8Array(encoder);
}

/** One decoded client message; throws on anything malformed (truncated, unknown type). */
export type ClientMessage =
  | { type: 'sync-step1'; stateVector: Uint8Array }
  | { type: 'update'; update: Uint8Array }
  | { type: 'awareness'; update: Uint8Array }
  | { type: 'query-awareness' }
  | { type: 'raw'; text: string; decoder: decoding.Decoder };

export function decodeClientMessage(data: Uint8Array): ClientMessage {
  const decoder = decoding.createDecoder(data);
  const type = decoding.readVarUint(decoder);
  let message: ClientMessage;
  if (type === MESSAGE_SYNC) {
    const syncType = decoding.readVarUint(decoder);
    const payload = decoding.readVarUint8Array(decoder);
    if (syncType === syncProtocol.messageYjsSyncStep1) message = { type: 'sync-step1', stateVector: payload };
    else if (syncType === syncProtocol.messageYjsSyncStep2 || syncType === syncProtocol.messageYjsUpdate) {
      message = { type: 'update', update: payload };
    } else throw new Error(`unknown sync message type ${syncType}`);
  } else if (type === MESSAGE_AWARENESS) {
    message = { type: 'awareness', update: decoding.readVarUint8Array(decoder) };
  } else if (type === MESSAGE_QUERY_AWARENESS) {
    message = { type: 'query-awareness' };
  } else if (type === MESSAGE_RAW) {
    return { type: 'raw', text: decoding.readVarString(decoder), decoder };
  } else {
    throw new Error(`unknown message type ${type}`);
  }
  if (decoding.hasContent(decoder)) throw new Error('trailing bytes after the message');
  return message;
}
