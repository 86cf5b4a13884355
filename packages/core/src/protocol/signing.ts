import * as crypto from 'node:crypto';
import { badRequest } from '../errors.js';
import type { RawMessage } from './types.js';

const ALGORITHMS: Record<string, string> = {
  'hmac-sha256': 'sha256',
  'hmac-sha384': 'sha384',
  'hmac-sha512': 'sha512',
  'hmac-sha1': 'sha1',
  'hmac-md5': 'md5',
};

/** Input block size of each hash: HMAC pads the key to it. */
const BLOCK_BYTES: Record<string, number> = { sha256: 64, sha384: 128, sha512: 128, sha1: 64, md5: 64 };

/** Messages up to this size are signed with two one-shot hashes over a reused buffer. */
const ONE_SHOT_MAX_BYTES = 64 * 1024;

/** `crypto.hash` (Node ≥ 20.12): a one-shot digest that creates no Hash object. */
const oneShotHash: typeof crypto.hash | undefined = crypto.hash;
const { createHash, createHmac, timingSafeEqual } = crypto;

/** One buffer for every signer's inner hash input: signing is synchronous, so it is never shared mid-use. */
let scratch = Buffer.allocUnsafe(4096);

const EMPTY = new Uint8Array(0);

/**
 * HMAC signer for one kernel connection (`key` + `signature_scheme` from the connection file).
 * An empty key disables signing, as in jupyter_client: signatures are empty and not checked.
 */
export class Signer {
  readonly key: string;
  readonly scheme: string;
  readonly #algorithm: string;
  readonly #keyBytes: Buffer;
  /** key XOR ipad (one hash block). */
  readonly #innerPad: Buffer;
  /** key XOR opad, followed by room for the inner digest. */
  readonly #outer: Buffer;

  constructor(key: string, scheme = 'hmac-sha256') {
    const algorithm = ALGORITHMS[scheme];
    if (algorithm === undefined) throw badRequest(`Unsupported signature scheme: ${scheme}`, 'bad value');
    this.key = key;
    this.scheme = scheme;
    this.#algorithm = algorithm;
    this.#keyBytes = Buffer.from(key, 'utf8');
    // HMAC (RFC 2104) by hand: hash((K ^ opad) || hash((K ^ ipad) || message)). Per message this
    // is two one-shot hashes instead of an Hmac object, which costs a native handle to create and
    // to collect — the largest share of nbserve's own time per iopub message in a flood.
    const block = BLOCK_BYTES[algorithm] ?? 64;
    const paddedKey = Buffer.alloc(block);
    (this.#keyBytes.length > block ? createHash(algorithm).update(this.#keyBytes).digest() : this.#keyBytes).copy(
      paddedKey,
    );
    this.#innerPad = Buffer.alloc(block);
    this.#outer = Buffer.alloc(block + createHash(algorithm).digest().length);
    for (let i = 0; i < block; i++) {
      this.#innerPad[i] = (paddedKey[i] ?? 0) ^ 0x36;
      this.#outer[i] = (paddedKey[i] ?? 0) ^ 0x5c;
    }
  }

  get enabled(): boolean {
    return this.#keyBytes.length > 0;
  }

  /** Lower-case hex HMAC over header, parent header, metadata and content (never buffers). */
  sign(raw: Pick<RawMessage, 'header' | 'parentHeader' | 'metadata' | 'content'>): Buffer {
    if (!this.enabled) return Buffer.alloc(0);
    const block = this.#innerPad.length;
    const { header, parentHeader, metadata, content } = raw;
    const length = block + header.length + parentHeader.length + metadata.length + content.length;
    if (oneShotHash && length <= ONE_SHOT_MAX_BYTES) {
      if (scratch.length < length) scratch = Buffer.allocUnsafe(Math.min(ONE_SHOT_MAX_BYTES, 2 * length));
      scratch.set(this.#innerPad, 0);
      scratch.set(header, block);
      scratch.set(parentHeader, block + header.length);
      scratch.set(metadata, block + header.length + parentHeader.length);
      scratch.set(content, length - content.length);
      oneShotHash(this.#algorithm, scratch.subarray(0, length), 'buffer').copy(this.#outer, block);
      return Buffer.from(oneShotHash(this.#algorithm, this.#outer, 'hex'), 'latin1');
    }
    const hmac = createHmac(this.#algorithm, this.#keyBytes);
    hmac.update(raw.header);
    hmac.update(raw.parentHeader);
    hmac.update(raw.metadata);
    hmac.update(raw.content);
    return Buffer.from(hmac.digest('hex'), 'latin1');
  }

  /** Constant-time check of a received signature. Always true when signing is disabled. */
  verify(signature: Uint8Array, raw: Pick<RawMessage, 'header' | 'parentHeader' | 'metadata' | 'content'>): boolean {
    if (!this.enabled) return true;
    const expected = this.sign(raw);
    const given = signature.length === expected.length ? signature : EMPTY;
    if (given.length !== expected.length) {
      // Compare anyway so a wrong length costs the same time as a wrong value.
      timingSafeEqual(expected, expected);
      return false;
    }
    return timingSafeEqual(expected, given);
  }
}
