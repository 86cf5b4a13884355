/**
 * ZMTP 3.0 (https://rfc.zeromq.org/spec/23/), the wire protocol of ZeroMQ, as far as a client of a
 * Jupyter kernel needs it: the NULL mechanism's greeting and READY command, and frames.
 *
 * A frame is a flags byte (MORE 1: another frame of the message follows; LONG 2: an 8-byte size;
 * COMMAND 4), the size (one byte, or eight big-endian), and the body.
 */

const MORE = 1;
const LONG = 2;
const COMMAND = 4;

export const GREETING_LENGTH = 64;

/** Our greeting: signature, version 3.0, mechanism NULL, not the server, filler. */
export function greeting(): Buffer {
  const bytes = Buffer.alloc(GREETING_LENGTH);
  bytes[0] = 0xff;
  bytes[9] = 0x7f;
  bytes[10] = 3;
  bytes[11] = 0;
  bytes.write('NULL', 12, 'latin1');
  return bytes;
}

/** Why the peer's greeting cannot be used, or undefined when it can (ZMTP 3.x, mechanism NULL). */
export function greetingProblem(bytes: Buffer): string | undefined {
  if (bytes[0] !== 0xff || ((bytes[9] ?? 0) & 1) !== 1) return 'not a ZeroMQ peer';
  if ((bytes[10] ?? 0) < 3) return `ZMTP ${bytes[10]}.${bytes[11]} (3.0 or later is needed)`;
  const mechanism = bytes.toString('latin1', 12, 32).replace(/\0+$/, '');
  return mechanism === 'NULL' ? undefined : `security mechanism ${mechanism} (only NULL is supported)`;
}

const headerLength = (size: number) => (size <= 255 ? 2 : 9);

/** Writes a frame's flags and size (one byte, or eight for a LONG frame) at `offset`; returns the offset after it. */
function writeHeader(out: Buffer, offset: number, size: number, flags: number): number {
  if (size <= 255) {
    out[offset] = flags;
    out[offset + 1] = size;
    return offset + 2;
  }
  out[offset] = flags | LONG;
  out.writeBigUInt64BE(BigInt(size), offset + 1);
  return offset + 9;
}

function frameHeader(size: number, flags: number): Buffer {
  const header = Buffer.allocUnsafe(headerLength(size));
  writeHeader(header, 0, size, flags);
  return header;
}

/** The READY command with the socket's properties (Socket-Type, and Identity for a DEALER). */
export function readyCommand(properties: Record<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.from([5]), Buffer.from('READY', 'latin1')];
  for (const [name, value] of Object.entries(properties)) {
    const bytes = Buffer.from(value, 'utf8');
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(bytes.length);
    parts.push(Buffer.from([name.length]), Buffer.from(name, 'latin1'), length, bytes);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([frameHeader(body.length, COMMAND), body]);
}

/** The properties of a READY command's body (Socket-Type, Identity, ...); throws on a corrupt one. */
export function readyProperties(body: Buffer): Record<string, Buffer> {
  const properties: Record<string, Buffer> = {};
  let at = 1 + (body[0] ?? 0);
  while (at < body.length) {
    const nameLength = body[at] as number;
    const name = body.toString('latin1', at + 1, at + 1 + nameLength);
    at += 1 + nameLength;
    if (at + 4 > body.length) throw new Error('a truncated READY property');
    const valueLength = body.readUInt32BE(at);
    at += 4;
    if (at + valueLength > body.length) throw new Error('a truncated READY property');
    properties[name] = body.subarray(at, at + valueLength);
    at += valueLength;
  }
  return properties;
}

/** A command's name (`READY`, `ERROR`, ...). */
export function commandName(body: Buffer): string {
  const length = body[0] ?? 0;
  return body.toString('latin1', 1, 1 + length);
}

/** Messages up to this size are written as one buffer; larger frames go out without a copy. */
const COALESCE_BYTES = 16 * 1024;

/** The buffers to write for one multipart message. */
export function encodeMessage(frames: readonly Uint8Array[]): Buffer[] {
  let total = 0;
  for (const frame of frames) total += headerLength(frame.length) + frame.length;
  if (total <= COALESCE_BYTES) {
    const out = Buffer.allocUnsafe(total);
    let offset = 0;
    frames.forEach((frame, i) => {
      offset = writeHeader(out, offset, frame.length, i < frames.length - 1 ? MORE : 0);
      out.set(frame, offset);
      offset += frame.length;
    });
    return [out];
  }
  const out: Buffer[] = [];
  frames.forEach((frame, i) => {
    out.push(frameHeader(frame.length, i < frames.length - 1 ? MORE : 0));
    out.push(Buffer.from(frame.buffer, frame.byteOffset, frame.length));
  });
  return out;
}

/** What the decoder found: a whole message, or a command. */
export type Decoded = { kind: 'message'; frames: Buffer[] } | { kind: 'command'; body: Buffer };

/** Frames bigger than this are refused (a kernel message is far smaller; a corrupt size is not). */
const MAX_FRAME_BYTES = 2 ** 32;

/**
 * Turns the bytes read from a connection, after the greeting, into messages and commands. Each
 * message's frames share one buffer of their own size, so a frame the server keeps holds only its
 * message, not the socket's read buffers (see zmq.ts on the same problem in libzmq).
 */
export class FrameDecoder {
  readonly #chunks: Buffer[] = [];
  /** Read position in the first chunk. */
  #head = 0;
  #available = 0;
  /** The current message's frames whose headers were read: sizes, body offsets from the message start. */
  #scanned: { size: number; bodyAt: number }[] = [];
  #complete = false;
  #isCommand = false;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#available += chunk.length;
  }

  /** Takes `n` bytes off the front (the greeting); undefined until that many have arrived. */
  take(n: number): Buffer | undefined {
    if (this.#available < n) return undefined;
    const out = Buffer.allocUnsafe(n);
    this.#copyOut(out, 0, n);
    return out;
  }

  /** The next whole message or command, or undefined until more bytes arrive. Throws on a corrupt stream. */
  next(): Decoded | undefined {
    while (!this.#complete) {
      const last = this.#scanned.at(-1);
      const at = last ? last.bodyAt + last.size : 0; // bytes of the message scanned so far
      if (this.#available < at + 2) return undefined;
      const flags = this.#peek(at);
      let size: number;
      let headerBytes: number;
      if (flags & LONG) {
        if (this.#available < at + 9) return undefined;
        size = 0;
        for (let i = 1; i <= 8; i++) size = size * 256 + this.#peek(at + i);
        if (size > MAX_FRAME_BYTES) throw new Error(`a ${size}-byte frame`);
        headerBytes = 9;
      } else {
        size = this.#peek(at + 1);
        headerBytes = 2;
      }
      if (this.#available < at + headerBytes + size) return undefined;
      const isCommand = (flags & COMMAND) !== 0;
      if (isCommand && this.#scanned.length > 0) throw new Error('a command inside a message');
      this.#scanned.push({ size, bodyAt: at + headerBytes });
      this.#isCommand = isCommand;
      if (isCommand || (flags & MORE) === 0) this.#complete = true;
    }
    const scanned = this.#scanned;
    let bodies = 0;
    for (const frame of scanned) bodies += frame.size;
    const store = Buffer.allocUnsafeSlow(bodies);
    const frames: Buffer[] = [];
    let read = 0;
    let offset = 0;
    for (const frame of scanned) {
      this.#skip(frame.bodyAt - read);
      this.#copyOut(store, offset, frame.size);
      frames.push(store.subarray(offset, offset + frame.size));
      offset += frame.size;
      read = frame.bodyAt + frame.size;
    }
    const isCommand = this.#isCommand;
    this.#scanned = [];
    this.#complete = false;
    return isCommand ? { kind: 'command', body: frames[0] as Buffer } : { kind: 'message', frames };
  }

  /** The byte `offset` bytes past the read position. */
  #peek(offset: number): number {
    let at = this.#head + offset;
    const chunks = this.#chunks;
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i] as Buffer;
      if (at < chunk.length) return chunk[at] as number;
      at -= chunk.length;
    }
    throw new RangeError('peek past the data');
  }

  #skip(n: number): void {
    let left = n;
    while (left > 0) {
      const first = this.#chunks[0] as Buffer;
      const inFirst = first.length - this.#head;
      if (left < inFirst) {
        this.#head += left;
        break;
      }
      left -= inFirst;
      this.#chunks.shift();
      this.#head = 0;
    }
    this.#available -= n;
  }

  #copyOut(target: Buffer, targetOffset: number, n: number): void {
    let copied = 0;
    while (copied < n) {
      const first = this.#chunks[0] as Buffer;
      const count = Math.min(n - copied, first.length - this.#head);
      first.copy(target, targetOffset + copied, this.#head, this.#head + count);
      copied += count;
      this.#head += count;
      if (this.#head === first.length) {
        this.#chunks.shift();
        this.#head = 0;
      }
    }
    this.#available -= n;
  }
}
