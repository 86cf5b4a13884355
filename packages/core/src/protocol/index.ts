export { createHeader, createMessage, type HeaderOptions, isoDate, newMsgId } from './header.js';
export { fromRaw, parsePart, peekMsgType, peekStringField, toRaw } from './json-parts.js';
export { Signer } from './signing.js';
export {
  CHANNELS,
  type Channel,
  type ExecutionState,
  isChannel,
  type JupyterMessage,
  type MessageHeader,
  PROTOCOL_VERSION,
  type RawMessage,
} from './types.js';
export { DELIMITER, decodeWire, encodeWire, type WireMessage } from './wire.js';
export {
  type ChannelMessage,
  decodeJsonFrame,
  decodeJsonFrameRaw,
  encodeJsonFrame,
  encodeJsonFrameBytes,
  encodeJsonFrameRaw,
  type RawChannelMessage,
} from './ws-json.js';
export { decodeV1Frame, encodeV1Frame, V1_SUBPROTOCOL, type V1Frame } from './ws-v1.js';
