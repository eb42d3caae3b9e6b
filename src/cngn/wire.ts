// The service's wire protocol: AES-256-CBC request bodies, NaCl-box response data, OpenSSH Ed25519 keys.
// NaCl box = X25519 (node's crypto, native) → HSalsa20 → XSalsa20-Poly1305 (@noble/ciphers).
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js';
import { CngnErrorCode } from './errors.js';

export class WireError extends Error {
  override name = 'WireError';
  readonly code = CngnErrorCode.Wire;
}

export class KeyFormatError extends Error {
  override name = 'KeyFormatError';
  readonly code = CngnErrorCode.KeyFormat;
}

export interface SealedRequestBody {
  content: string;
  iv: string;
}

const NONCE_BYTES = 24;
const PUBLIC_KEY_BYTES = 32;
const POLY1305_TAG_BYTES = 16;
const MIN_SEALED_BYTES = NONCE_BYTES + POLY1305_TAG_BYTES + PUBLIC_KEY_BYTES;
const NOT_OPENED =
  'Could not open the response data: it was tampered with or sealed to another key (check CNGN_PRIVATE_KEY matches the key uploaded for this environment)';
// Bounds for the per-key caches: a process holds one or two keys; tests and sandboxes make more.
const CACHE_LIMIT = 64;

/** AES key = SHA-256 of the encryption key string as UTF-8; never hex-decoded, never used raw. */
export function aesKeyFor(encryptionKey: string): Buffer {
  return createHash('sha256').update(encryptionKey, 'utf8').digest();
}

const aesKeys = new Map<string, Buffer>();
function cachedAesKey(encryptionKey: string): Buffer {
  let key = aesKeys.get(encryptionKey);
  if (!key) {
    if (aesKeys.size >= CACHE_LIMIT) aesKeys.clear();
    key = aesKeyFor(encryptionKey);
    aesKeys.set(encryptionKey, key);
  }
  return key;
}

// IVs are cut from one buffer of the CSPRNG's bytes, refilled when used up: one call to the generator
// per 256 seals instead of one each. Each IV is used once and the buffer never leaves this module.
const IV_BYTES = 16;
let ivPool = Buffer.alloc(0);
let ivUsed = 0;
function freshIv(): Buffer {
  if (ivUsed + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_BYTES * 256);
    ivUsed = 0;
  }
  const iv = ivPool.subarray(ivUsed, ivUsed + IV_BYTES);
  ivUsed += IV_BYTES;
  return iv;
}

/** Seal a JSON text for an Encrypted endpoint. A fresh random IV unless one is given (tests). */
export function sealRequestBody(
  json: string,
  encryptionKey: string,
  iv: Buffer = freshIv(),
): SealedRequestBody {
  if (iv.length !== IV_BYTES) throw new WireError('The IV must be 16 bytes');
  const cipher = createCipheriv('aes-256-cbc', cachedAesKey(encryptionKey), iv);
  // Base64 straight from the cipher (it carries a partial group from update to final).
  const content = cipher.update(json, 'utf8', 'base64') + cipher.final('base64');
  return { content, iv: iv.toString('base64') };
}

/** The service side of sealRequestBody: returns the JSON text. */
export function openRequestBody(body: SealedRequestBody, encryptionKey: string): string {
  const iv = Buffer.from(body.iv, 'base64');
  if (iv.length !== 16) throw new WireError('Decryption failed: the IV is not 16 bytes');
  try {
    const decipher = createDecipheriv('aes-256-cbc', cachedAesKey(encryptionKey), iv);
    return Buffer.concat([decipher.update(Buffer.from(body.content, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new WireError('Decryption failed: wrong encryption key or corrupted body');
  }
}

// ---- NaCl box (crypto_box_curve25519xsalsa20poly1305) ---------------------------------------------

// Node imports raw X25519 keys only wrapped: PKCS#8 DER for a secret, JWK for a public key (the
// cheaper wrapping to import, and a public key is imported per response).
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** SPKI DER of an X25519 or Ed25519 public key: a 12-byte header, then the 32 raw bytes. */
const SPKI_HEADER_BYTES = 12;
// HSalsa20 constants and input for crypto_box_beforenm, as little-endian words like the key.
const SIGMA = littleEndianWords(Buffer.from('expand 32-byte k', 'latin1'));
const ZERO_INPUT = new Uint32Array(4);

function littleEndianWords(bytes: Uint8Array): Uint32Array {
  return new Uint32Array(new Uint8Array(bytes).buffer);
}

function x25519PrivateKey(secret: Uint8Array): KeyObject {
  if (secret.length !== 32) throw new WireError('A Curve25519 secret key is 32 bytes');
  const der = Buffer.concat([X25519_PKCS8_PREFIX, secret]);
  try {
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

function x25519PublicKey(publicKey: Uint8Array): KeyObject {
  if (publicKey.length !== 32) throw new WireError('A Curve25519 public key is 32 bytes');
  const x = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.length).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x }, format: 'jwk' });
}

// Keys are never made with generateKeyPair(Sync) and public keys never exported as JWK. On Node 20
// the two together can hang the process for good: a garbage collection that lands inside a JWK
// export finalises the key-generation job of the same key, whose destructor waits for the lock the
// export holds, on the same thread (seen as a sandbox frozen mid-seal; reproduced by
// test/cngn/wire-gc.test.ts). Fresh keys are random bytes imported as PKCS#8 instead, and raw
// public keys are read off their SPKI DER.
function rawPublicKey(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' }).subarray(SPKI_HEADER_BYTES);
}

/** A KeyObject per raw key, built once: callers hold their key for the life of a client. */
function keyObjectCache(build: (raw: Uint8Array) => KeyObject): (raw: Uint8Array) => KeyObject {
  const byArray = new WeakMap<Uint8Array, { raw: Buffer; key: KeyObject }>();
  return (raw) => {
    const hit = byArray.get(raw);
    if (hit?.raw.equals(raw)) return hit.key; // the same array, still holding the same bytes
    const key = build(raw);
    byArray.set(raw, { raw: Buffer.from(raw), key });
    return key;
  };
}
const privateKeyFor = keyObjectCache(x25519PrivateKey);
const publicKeyFor = keyObjectCache(x25519PublicKey);

/**
 * crypto_box_beforenm: HSalsa20 of the X25519 shared secret. Node refuses an all-zero shared
 * secret (a small-order public key), as libsodium does; the error is the caller's to name.
 */
function boxKey(privateKey: KeyObject, publicKey: KeyObject): Uint8Array {
  const shared = diffieHellman({ privateKey, publicKey });
  const words = littleEndianWords(shared);
  shared.fill(0);
  const key = new Uint32Array(8);
  hsalsa(SIGMA, words, ZERO_INPUT, key);
  words.fill(0);
  return new Uint8Array(key.buffer);
}

/** Open response `data`: base64(nonce(24) || box || ephemeral public key(32)). Returns the JSON text. */
export function openResponseData(data: string, curveSecretKey: Uint8Array): string {
  const blob = Buffer.from(data, 'base64');
  if (blob.length < MIN_SEALED_BYTES) {
    throw new WireError(
      `Sealed response data is ${blob.length} bytes; at least ${MIN_SEALED_BYTES} are needed`,
    );
  }
  const privateKey = privateKeyFor(curveSecretKey);
  const nonce = blob.subarray(0, NONCE_BYTES);
  const ephemeralPublic = blob.subarray(blob.length - PUBLIC_KEY_BYTES);
  const box = blob.subarray(NONCE_BYTES, blob.length - PUBLIC_KEY_BYTES);
  let key: Uint8Array | undefined;
  let opened: Uint8Array;
  try {
    key = boxKey(privateKey, x25519PublicKey(ephemeralPublic));
    opened = xsalsa20poly1305(key, nonce).decrypt(box);
  } catch {
    throw new WireError(NOT_OPENED);
  } finally {
    key?.fill(0);
  }
  return Buffer.from(opened.buffer, opened.byteOffset, opened.length).toString('utf8');
}

/** Where sealed response data's parts lie: nonce || box || ephemeral public key, in bytes. */
export const SEALED_LAYOUT = {
  nonceBytes: NONCE_BYTES,
  publicKeyBytes: PUBLIC_KEY_BYTES,
  minBytes: MIN_SEALED_BYTES,
} as const;

/**
 * The key that opens sealed `data`'s box (crypto_box_beforenm, as openResponseData makes it), from the
 * ephemeral public key at its end: only the last base64 groups are decoded, not the whole answer.
 * Undefined when the text is not padded base64 in whole groups, or too short, or the key is refused:
 * openResponseData then says why. The caller zeroes the key once used.
 */
export function sealedDataKey(data: string, curveSecretKey: Uint8Array): Uint8Array | undefined {
  // Groups of 4 characters (3 bytes) from the end covering the key, and the padding of the last one.
  const chars = 4 * Math.ceil((PUBLIC_KEY_BYTES + 2) / 3);
  if (data.length % 4 !== 0 || data.length < (4 * MIN_SEALED_BYTES) / 3 + chars) return undefined;
  const tail = Buffer.from(data.slice(-chars), 'base64');
  if (tail.length < PUBLIC_KEY_BYTES) return undefined;
  try {
    return boxKey(privateKeyFor(curveSecretKey), x25519PublicKey(tail.subarray(-PUBLIC_KEY_BYTES)));
  } catch {
    return undefined;
  }
}

export interface SealOptions {
  /** Fixed ephemeral secret and nonce, for test vectors only. */
  ephemeralSecretKey?: Uint8Array;
  nonce?: Uint8Array;
}

/** The service side of openResponseData: seal JSON text to the Curve25519 form of a business's key. */
export function sealResponseData(
  json: string,
  recipientCurvePublic: Uint8Array,
  options: SealOptions = {},
): string {
  const secret = options.ephemeralSecretKey ?? randomBytes(32);
  const privateKey = x25519PrivateKey(secret);
  if (!options.ephemeralSecretKey) secret.fill(0);
  const ephemeral = { privateKey, publicKey: createPublicKey(privateKey) };
  const nonce = options.nonce ?? randomBytes(NONCE_BYTES);
  if (nonce.length !== NONCE_BYTES) throw new WireError(`The nonce must be ${NONCE_BYTES} bytes`);
  const key = boxKey(ephemeral.privateKey, publicKeyFor(recipientCurvePublic));
  const box = xsalsa20poly1305(key, nonce).encrypt(Buffer.from(json, 'utf8'));
  key.fill(0);
  return Buffer.concat([nonce, box, rawPublicKey(ephemeral.publicKey)]).toString('base64');
}

/** libsodium crypto_sign_ed25519_sk_to_curve25519: SHA-512(seed)[0..32], clamped. */
export function curveSecretFromSeed(seed: Uint8Array): Uint8Array {
  const hash = createHash('sha512').update(seed).digest();
  const secret = new Uint8Array(hash.subarray(0, 32));
  secret[0] = (secret[0] ?? 0) & 248;
  secret[31] = ((secret[31] ?? 0) & 127) | 64;
  return secret;
}

const curvePublics = new Map<string, Uint8Array>();
/**
 * libsodium crypto_sign_ed25519_pk_to_curve25519 (birational map to Montgomery form). Node has no
 * such conversion, so this one step stays on @noble/curves, done once per key. Only the sandbox and
 * tests need it, so the library is loaded on first use rather than at every start-up.
 */
export async function curvePublicFromEd25519(publicKey: Uint8Array): Promise<Uint8Array> {
  const id = Buffer.from(publicKey).toString('hex');
  let curve = curvePublics.get(id);
  if (!curve) {
    const { ed25519 } = await import('@noble/curves/ed25519.js');
    if (curvePublics.size >= CACHE_LIMIT) curvePublics.clear();
    curve = ed25519.utils.toMontgomery(publicKey);
    curvePublics.set(id, curve);
  }
  return new Uint8Array(curve);
}

// ---- OpenSSH keys -------------------------------------------------------------------------------

export interface Ed25519KeyPair {
  seed: Uint8Array;
  publicKey: Uint8Array;
  comment: string;
}

const OPENSSH_MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const PRIVATE_PEM = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/;

class SshReader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  uint32(): number {
    if (this.offset + 4 > this.buffer.length) throw new KeyFormatError('The OpenSSH key is truncated');
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  bytes(): Buffer {
    const length = this.uint32();
    if (this.offset + length > this.buffer.length) throw new KeyFormatError('The OpenSSH key is truncated');
    const value = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return value;
  }

  text(): string {
    return this.bytes().toString('utf8');
  }
}

/** Parse an unencrypted OpenSSH private key file (`ssh-keygen -t ed25519 -N ""`) structurally. */
export function parseOpenSshPrivateKey(text: string): Ed25519KeyPair {
  const pem = PRIVATE_PEM.exec(text);
  if (!pem?.[1]) {
    throw new KeyFormatError(
      'The private key is not in OpenSSH format (expected "-----BEGIN OPENSSH PRIVATE KEY-----")',
    );
  }
  const raw = Buffer.from(pem[1].replace(/\s+/g, ''), 'base64');
  if (!raw.subarray(0, OPENSSH_MAGIC.length).equals(OPENSSH_MAGIC)) {
    throw new KeyFormatError('The private key is not an openssh-key-v1 key');
  }
  const reader = new SshReader(raw.subarray(OPENSSH_MAGIC.length));
  const cipherName = reader.text();
  const kdfName = reader.text();
  reader.bytes(); // kdf options
  if (cipherName !== 'none' || kdfName !== 'none') {
    throw new KeyFormatError(
      'The private key is protected by a passphrase; the service needs an unencrypted key (ssh-keygen -t ed25519 -N "")',
    );
  }
  const keyCount = reader.uint32();
  if (keyCount !== 1)
    throw new KeyFormatError(`The key file holds ${keyCount} keys; exactly one is expected`);
  const publicBlob = new SshReader(reader.bytes());
  const publicType = publicBlob.text();
  if (publicType !== 'ssh-ed25519') {
    throw new KeyFormatError(`The private key is ${publicType}; the service needs an Ed25519 key`);
  }
  const section = new SshReader(reader.bytes());
  const [checkA, checkB] = [section.uint32(), section.uint32()];
  if (checkA !== checkB) {
    throw new KeyFormatError('The private key is corrupt (check bytes differ)');
  }
  const keyType = section.text();
  if (keyType !== 'ssh-ed25519') {
    throw new KeyFormatError(`The private key is ${keyType}; the service needs an Ed25519 key`);
  }
  const publicKey = section.bytes();
  const secret = section.bytes();
  const comment = section.text();
  if (publicKey.length !== 32 || secret.length !== 64) {
    throw new KeyFormatError('The Ed25519 key has the wrong length');
  }
  if (!secret.subarray(32).equals(publicKey)) {
    throw new KeyFormatError('The private key is corrupt (public halves differ)');
  }
  return { seed: new Uint8Array(secret.subarray(0, 32)), publicKey: new Uint8Array(publicKey), comment };
}

/** Parse an OpenSSH public key line (`ssh-ed25519 AAAA… comment`). */
export function parseOpenSshPublicKey(line: string): Uint8Array {
  const [type, base64] = line.trim().split(/\s+/);
  if (type !== 'ssh-ed25519' || !base64) throw new KeyFormatError('Not an ssh-ed25519 public key');
  const reader = new SshReader(Buffer.from(base64, 'base64'));
  if (reader.text() !== 'ssh-ed25519') throw new KeyFormatError('Not an ssh-ed25519 public key');
  const key = reader.bytes();
  if (key.length !== 32) throw new KeyFormatError('The Ed25519 public key has the wrong length');
  return new Uint8Array(key);
}

function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** A fresh Ed25519 key pair in OpenSSH text form (what `ssh-keygen -t ed25519 -N ""` writes). */
export function generateOpenSshKeyPair(comment = 'cngn-desk-sandbox'): {
  privateKey: string;
  publicKey: string;
} {
  const seed = randomBytes(32);
  const der = Buffer.concat([ED25519_PKCS8_PREFIX, seed]);
  const pub = rawPublicKey(createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })));
  der.fill(0);
  const publicBlob = Buffer.concat([sshString('ssh-ed25519'), sshString(pub)]);
  const check = randomBytes(4);
  let section = Buffer.concat([
    check,
    check,
    sshString('ssh-ed25519'),
    sshString(pub),
    sshString(Buffer.concat([seed, pub])),
    sshString(comment),
  ]);
  const padding = Buffer.from(Array.from({ length: (8 - (section.length % 8)) % 8 }, (_, i) => i + 1));
  section = Buffer.concat([section, padding]);
  const body = Buffer.concat([
    OPENSSH_MAGIC,
    sshString('none'),
    sshString('none'),
    sshString(''),
    Buffer.from([0, 0, 0, 1]),
    sshString(publicBlob),
    sshString(section),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return {
    privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`,
    publicKey: `ssh-ed25519 ${publicBlob.toString('base64')} ${comment}\n`,
  };
}
