import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, brotliDecompress, brotliDecompressSync, constants } from 'node:zlib';

/**
 * decisions §12.5: a kept answer may hold a credential (a private app's token and secret, a
 * refreshed token, a sign-in link, an OAuth code), so every kept body is sealed: compressed, then
 * encrypted with AES-256-GCM under a key derived from PLATFORM_SECRET. The database, a dump or a
 * backup alone cannot open it; the secret that sealed it can, and PLATFORM_SECRET_PREVIOUS still
 * opens what the secret before a rotation sealed.
 *
 * Layout: [format 1][key id 4][iv 12][ciphertext][tag 16]. The key id names the secret that sealed
 * it, so opening does not guess. The row it belongs to (scope, key, fingerprint, status) is bound as
 * associated data: a sealed answer moved to another row (another app's key) does not open there.
 */
const FORMAT = 1;
const KEY_ID_LENGTH = 4;
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const HEADER_LENGTH = 1 + KEY_ID_LENGTH;
/** Bytes a sealed answer adds to its compressed body. */
export const SEAL_OVERHEAD = HEADER_LENGTH + IV_LENGTH + TAG_LENGTH;

/**
 * Brotli at quality 5: a 3 MB bulk answer in about 15-30 ms of CPU to a 27th of its size (quality 11
 * took 9 s; gzip level 6, 12 ms for a 20th), measured on this project's 2-core machine.
 */
const BROTLI_QUALITY = 5;
/**
 * Small bodies (most answers) are compressed on the event loop: tens of microseconds, where a trip
 * through zlib's thread pool cost several times that. Larger ones go to the pool.
 */
const ON_THE_LOOP_BYTES = 64 * 1024;

const compressAsync = promisify(brotliCompress);
const decompressAsync = promisify(brotliDecompress);

function compress(plain: Buffer): Promise<Buffer> | Buffer {
  const options = {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: plain.length,
      // A window no larger than the body (10..22 bits): the default 4 MB window's set-up was most of
      // the cost of compressing a small answer.
      [constants.BROTLI_PARAM_LGWIN]: Math.min(22, Math.max(10, Math.ceil(Math.log2(plain.length + 1)))),
    },
  };
  return plain.length <= ON_THE_LOOP_BYTES ? brotliCompressSync(plain, options) : compressAsync(plain, options);
}

function decompress(compressed: Buffer): Promise<Buffer> | Buffer {
  return compressed.length <= ON_THE_LOOP_BYTES / 4 ? brotliDecompressSync(compressed) : decompressAsync(compressed);
}

/** What a sealed answer is bound to: the row it is kept in. */
export interface SealContext {
  scope: string;
  key: string;
  fingerprint: string;
  status: number;
}

interface DerivedKey {
  id: Buffer;
  key: Buffer;
}

/** HKDF-SHA256 of the secret, one label per use, so these keys are never the cursors' HMAC key. */
function derive(secret: string): DerivedKey {
  const expand = (label: string, length: number) => Buffer.from(hkdfSync('sha256', secret, '', `platform/${label}`, length));
  return { key: expand('idempotency-answers/aes-256-gcm/v1', 32), id: expand('idempotency-answers/key-id/v1', KEY_ID_LENGTH) };
}

function associatedData(header: Buffer, context: SealContext): Buffer {
  return Buffer.concat([header, Buffer.from(JSON.stringify([context.scope, context.key, context.fingerprint, context.status]))]);
}

export class AnswerSeal {
  private readonly current: DerivedKey;
  /** The current key first: most rows were sealed with it. */
  private readonly keys: DerivedKey[];

  /** `secrets`: the current PLATFORM_SECRET first, then any earlier one still able to open. */
  constructor(secrets: readonly [string, ...string[]]) {
    this.keys = secrets.map(derive);
    this.current = this.keys[0]!;
  }

  async seal(body: string, context: SealContext): Promise<Buffer> {
    const plain = await compress(Buffer.from(body, 'utf8'));
    const header = Buffer.concat([Buffer.of(FORMAT), this.current.id]);
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(associatedData(header, context));
    const encrypted = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([header, iv, encrypted, cipher.getAuthTag()]);
  }

  /** The body, or undefined when no key held opens it (sealed with another secret, or altered). */
  async open(sealed: Uint8Array, context: SealContext): Promise<string | undefined> {
    const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (bytes.length < SEAL_OVERHEAD || bytes[0] !== FORMAT) return undefined;
    const header = bytes.subarray(0, HEADER_LENGTH);
    const id = bytes.subarray(1, HEADER_LENGTH);
    const iv = bytes.subarray(HEADER_LENGTH, HEADER_LENGTH + IV_LENGTH);
    const encrypted = bytes.subarray(HEADER_LENGTH + IV_LENGTH, bytes.length - TAG_LENGTH);
    const tag = bytes.subarray(bytes.length - TAG_LENGTH);
    for (const candidate of this.keys) {
      if (!candidate.id.equals(id)) continue;
      let plain: Buffer;
      try {
        const decipher = createDecipheriv('aes-256-gcm', candidate.key, iv);
        decipher.setAAD(associatedData(header, context));
        decipher.setAuthTag(tag);
        plain = Buffer.concat([decipher.update(encrypted), decipher.final()]);
      } catch {
        continue; // another key with the same 4-byte id, or altered bytes: the tag does not verify
      }
      return (await decompress(plain)).toString('utf8');
    }
    return undefined;
  }
}
