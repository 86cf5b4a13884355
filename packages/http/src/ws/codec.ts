import { badRequest, isObject, protocol } from '@nbserve/core';

/** One WebSocket framing of kernel messages. Both carry the kernel's JSON bytes unparsed outbound. */
export interface ChannelCodec {
  /** The negotiated subprotocol ('' for the default JSON framing). */
  readonly subprotocol: string;
  /** Encodes a kernel message; `binary` tells which WebSocket frame type to use. */
  encode(channel: protocol.Channel, raw: protocol.RawMessage): { data: Buffer; binary: boolean };
  /** Decodes and validates a client frame. Throws bad-request for anything malformed. */
  decode(data: Buffer, isBinary: boolean): { channel: protocol.Channel; raw: protocol.RawMessage; msgType: string };
}

/** The default framing: JSON text with `channel`, binary offset framing when buffers are attached. */
export const jsonCodec: ChannelCodec = {
  subprotocol: '',
  encode: protocol.encodeJsonFrameBytes,
  decode: protocol.decodeJsonFrameRaw,
};

/** `v1.kernel.websocket.jupyter.org`: binary frames only; the parts are checked to be JSON objects. */
export const v1Codec: ChannelCodec = {
  subprotocol: protocol.V1_SUBPROTOCOL,
  encode(channel, raw) {
    return { data: protocol.encodeV1Frame(channel, raw), binary: true };
  },
  decode(data, isBinary) {
    if (!isBinary) throw badRequest('The v1 kernel protocol only accepts binary frames', 'bad frame');
    const { channel, raw } = protocol.decodeV1Frame(data);
    let header: unknown;
    try {
      header = protocol.parsePart(raw.header);
      for (const part of [raw.parentHeader, raw.metadata, raw.content]) {
        if (!isObject(protocol.parsePart(part))) throw new Error('not an object');
      }
    } catch {
      throw badRequest('v1 frame parts are not JSON objects', 'bad frame');
    }
    if (!isObject(header) || typeof header.msg_type !== 'string' || typeof header.msg_id !== 'string') {
      throw badRequest('v1 frame header lacks msg_id or msg_type', 'bad frame');
    }
    return { channel, raw, msgType: header.msg_type };
  },
};

export function codecFor(subprotocol: string): ChannelCodec {
  return subprotocol === protocol.V1_SUBPROTOCOL ? v1Codec : jsonCodec;
}
