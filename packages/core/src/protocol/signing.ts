import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../errors.js';
import type { RawMessage } from './types.js';

const ALGORITHMS: Record<string, string> = {
  'hmac-sha256': 'sha256',
  'hmac-sha384': 'sha384',
  'hmac-sha512': 'sha512',
  'hmac-sha1': 'sha1',
  'hmac-md5': 'md5',
};

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

  constructor(key: string, scheme = 'hmac-sha256') {
    const algorithm = ALGORITHMS[scheme];
    if (algorithm === undefined) throw badRequest(`Unsupported signature scheme: ${scheme}`, 'bad signature scheme');
    this.key = key;
    this.scheme = scheme;
    this.#algorithm = algorithm;
    this.#keyBytes = Buffer.from(key, 'utf8');
  }

  get enabled(): boolean {
    return this.#keyBytes.length > 0;
  }

  /** Lower-case hex HMAC over header, parent header, metadata and content (never buffers). */
  sign(raw: Pick<RawMessage, 'header' | 'parentHeader' | 'metadata' | 'content'>): Buffer {
    if (!this.enabled) return Buffer.alloc(0);
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
