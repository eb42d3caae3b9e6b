// The service's wire protocol: AES-256-CBC request bodies, NaCl-box response data, OpenSSH Ed25519 keys.
import { createCipheriv, createDecipheriv, createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import nacl from 'tweetnacl';

export class WireError extends Error {
  override name = 'WireError';
}

export class KeyFormatError extends Error {
  override name = 'KeyFormatError';
}

export interface SealedRequestBody {
  content: string;
  iv: string;
}

const NONCE_BYTES = 24;
const PUBLIC_KEY_BYTES = 32;
const MIN_SEALED_BYTES = NONCE_BYTES + nacl.box.overheadLength + PUBLIC_KEY_BYTES;

/** AES key = SHA-256 of the encryption key string as UTF-8; never hex-decoded, never used raw. */
export function aesKeyFor(encryptionKey: string): Buffer {
  return createHash('sha256').update(encryptionKey, 'utf8').digest();
}

/** Seal a JSON text for an Encrypted endpoint. A fresh random IV unless one is given (tests). */
export function sealRequestBody(
  json: string,
  encryptionKey: string,
  iv: Buffer = randomBytes(16),
): SealedRequestBody {
  if (iv.length !== 16) throw new WireError('The IV must be 16 bytes');
  const cipher = createCipheriv('aes-256-cbc', aesKeyFor(encryptionKey), iv);
  const content = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
  return { content: content.toString('base64'), iv: iv.toString('base64') };
}

/** The service side of sealRequestBody: returns the JSON text. */
export function openRequestBody(body: SealedRequestBody, encryptionKey: string): string {
  const iv = Buffer.from(body.iv, 'base64');
  if (iv.length !== 16) throw new WireError('Decryption failed: the IV is not 16 bytes');
  try {
    const decipher = createDecipheriv('aes-256-cbc', aesKeyFor(encryptionKey), iv);
    return Buffer.concat([decipher.update(Buffer.from(body.content, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new WireError('Decryption failed: wrong encryption key or corrupted body');
  }
}

/** Open response `data`: base64(nonce(24) || box || ephemeral public key(32)). Returns the JSON text. */
export function openResponseData(data: string, curveSecretKey: Uint8Array): string {
  const blob = Buffer.from(data, 'base64');
  if (blob.length < MIN_SEALED_BYTES) {
    throw new WireError(
      `Sealed response data is ${blob.length} bytes; at least ${MIN_SEALED_BYTES} are needed`,
    );
  }
  const nonce = blob.subarray(0, NONCE_BYTES);
  const ephemeralPublic = blob.subarray(blob.length - PUBLIC_KEY_BYTES);
  const box = blob.subarray(NONCE_BYTES, blob.length - PUBLIC_KEY_BYTES);
  const opened = nacl.box.open(box, nonce, ephemeralPublic, curveSecretKey);
  if (!opened) {
    throw new WireError(
      'Could not open the response data: it was tampered with or sealed to another key (check CNGN_PRIVATE_KEY matches the key uploaded for this environment)',
    );
  }
  return Buffer.from(opened).toString('utf8');
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
  const ephemeral = options.ephemeralSecretKey
    ? nacl.box.keyPair.fromSecretKey(options.ephemeralSecretKey)
    : nacl.box.keyPair();
  const nonce = options.nonce ?? nacl.randomBytes(NONCE_BYTES);
  const box = nacl.box(Buffer.from(json, 'utf8'), nonce, recipientCurvePublic, ephemeral.secretKey);
  return Buffer.concat([nonce, box, ephemeral.publicKey]).toString('base64');
}

/** libsodium crypto_sign_ed25519_sk_to_curve25519: SHA-512(seed)[0..32], clamped. */
export function curveSecretFromSeed(seed: Uint8Array): Uint8Array {
  const hash = createHash('sha512').update(seed).digest();
  const secret = new Uint8Array(hash.subarray(0, 32));
  secret[0] = (secret[0] ?? 0) & 248;
  secret[31] = ((secret[31] ?? 0) & 127) | 64;
  return secret;
}

/** libsodium crypto_sign_ed25519_pk_to_curve25519 (birational map to Montgomery form). */
export function curvePublicFromEd25519(publicKey: Uint8Array): Uint8Array {
  return ed25519.utils.toMontgomery(publicKey);
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
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const pub = Buffer.from(jwk.x ?? '', 'base64url');
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
