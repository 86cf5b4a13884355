import { badRequest } from '../errors.js';
import type { Signer } from './signing.js';
import type { RawMessage } from './types.js';

/** The frame separating ZeroMQ routing identities from the message. */
export const DELIMITER = Buffer.from('<IDS|MSG>', 'latin1');

export interface WireMessage {
  /** Routing identities (ROUTER peers) or the iopub topic, everything before the delimiter. */
  identities: Uint8Array[];
  signature: Uint8Array;
  raw: RawMessage;
}

function isDelimiter(frame: Uint8Array): boolean {
  if (frame.length !== DELIMITER.length) return false;
  for (let i = 0; i < DELIMITER.length; i++) if (frame[i] !== DELIMITER[i]) return false;
  return true;
}

/** Splits the multipart frames of a received ZeroMQ message. Throws bad-request when malformed. */
export function decodeWire(frames: readonly Uint8Array[]): WireMessage {
  let at = 0;
  while (at < frames.length && !isDelimiter(frames[at] as Uint8Array)) at++;
  if (at === frames.length) throw badRequest('ZeroMQ message without <IDS|MSG> delimiter', 'bad message');
  if (frames.length - at - 1 < 5) throw badRequest('ZeroMQ message with fewer than 5 parts', 'bad message');
  return {
    identities: frames.slice(0, at) as Uint8Array[],
    signature: frames[at + 1] as Uint8Array,
    raw: {
      header: frames[at + 2] as Uint8Array,
      parentHeader: frames[at + 3] as Uint8Array,
      metadata: frames[at + 4] as Uint8Array,
      content: frames[at + 5] as Uint8Array,
      buffers: frames.slice(at + 6) as Uint8Array[],
    },
  };
}

/** Builds the multipart frames of a message, signed with `signer`. */
export function encodeWire(raw: RawMessage, signer: Signer, identities: readonly Uint8Array[] = []): Uint8Array[] {
  return [
    ...identities,
    DELIMITER,
    signer.sign(raw),
    raw.header,
    raw.parentHeader,
    raw.metadata,
    raw.content,
    ...raw.buffers,
  ];
}
