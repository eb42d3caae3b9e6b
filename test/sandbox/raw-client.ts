// A tiny independent client that knows only the wire protocol as published (AES-256-CBC bodies,
// NaCl-box data), built on node:crypto and @noble/ciphers alone, so the sandbox is tested without any
// of the project's own wire code.
import {
  createCipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  randomBytes,
} from 'node:crypto';
import { hsalsa, xsalsa20poly1305 } from '@noble/ciphers/salsa.js';

/** The Ed25519 seed from an unencrypted OpenSSH private key (openssh-key-v1). */
function ed25519Seed(keyText: string): Buffer {
  const bytes = Buffer.from(keyText.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  let at = 'openssh-key-v1\0'.length;
  const field = () => {
    const length = bytes.readUInt32BE(at);
    at += 4 + length;
    return bytes.subarray(at - length, at);
  };
  field(); // cipher name
  field(); // kdf name
  field(); // kdf options
  at += 4; // number of keys
  field(); // public key
  const secret = field();
  at = 8; // two check words
  const read = () => {
    const length = secret.readUInt32BE(at);
    at += 4 + length;
    return secret.subarray(at - length, at);
  };
  read(); // key type
  read(); // public key
  return read().subarray(0, 32); // seed || public key
}

/** libsodium's crypto_sign_ed25519_sk_to_curve25519: SHA-512 of the seed, first 32 bytes, clamped. */
function curveSecret(seed: Buffer): Uint8Array {
  const hash = createHash('sha512').update(seed).digest().subarray(0, 32);
  hash[0] = (hash[0] ?? 0) & 248;
  hash[31] = ((hash[31] ?? 0) & 127) | 64;
  return new Uint8Array(hash);
}

function seal(json: string, encryptionKey: string): { content: string; iv: string } {
  const iv = randomBytes(16);
  const key = createHash('sha256').update(encryptionKey, 'utf8').digest();
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  const content = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
  return { content: content.toString('base64'), iv: iv.toString('base64') };
}

/** NaCl crypto_box_open: X25519, then HSalsa20 of the shared secret, then XSalsa20-Poly1305. */
function open(data: string, secret: Uint8Array): unknown {
  const blob = Buffer.from(data, 'base64');
  const nonce = blob.subarray(0, 24);
  const box = blob.subarray(24, blob.length - 32);
  const ephemeral = blob.subarray(blob.length - 32);
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), secret]);
  const shared = diffieHellman({
    privateKey: createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }),
    publicKey: createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: ephemeral.toString('base64url') },
      format: 'jwk',
    }),
  });
  const words = (bytes: Uint8Array) => new Uint32Array(new Uint8Array(bytes).buffer);
  const key = new Uint32Array(8);
  hsalsa(words(Buffer.from('expand 32-byte k', 'latin1')), words(shared), new Uint32Array(4), key);
  try {
    const plain = xsalsa20poly1305(new Uint8Array(key.buffer), nonce).decrypt(box);
    return JSON.parse(Buffer.from(plain).toString('utf8'));
  } catch {
    throw new Error('the response data does not open with this key');
  }
}

export interface RawAnswer<T = unknown> {
  httpStatus: number;
  /** The envelope as received (data still sealed). */
  envelope: { status?: number | boolean; message?: string; data?: unknown };
  /** `data` opened with the business's private key, when present. */
  data: T;
}

export interface RawCallOptions {
  /** Override the Authorization header; null sends none. */
  authorization?: string | null;
  /** Send this text as the body instead of sealing `body`. */
  rawBody?: string;
  /** Seal with this encryption key instead of the right one. */
  encryptionKey?: string;
}

export class RawClient {
  private readonly curveSecret: Uint8Array;

  constructor(
    readonly baseUrl: string,
    readonly apiKey: string,
    readonly encryptionKey: string,
    privateKeyText: string,
  ) {
    this.curveSecret = curveSecret(ed25519Seed(privateKeyText));
  }

  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options: RawCallOptions = {},
  ): Promise<RawAnswer<T>> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const authorization =
      options.authorization === undefined ? `Bearer ${this.apiKey}` : options.authorization;
    if (authorization !== null) headers.authorization = authorization;
    let payload: string | undefined = options.rawBody;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(seal(JSON.stringify(body), options.encryptionKey ?? this.encryptionKey));
    }
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const text = await response.text();
    const envelope = JSON.parse(text) as RawAnswer['envelope'];
    const data = typeof envelope.data === 'string' ? open(envelope.data, this.curveSecret) : envelope.data;
    return { httpStatus: response.status, envelope, data: data as T };
  }

  get<T = unknown>(path: string, options?: RawCallOptions) {
    return this.call<T>('GET', path, undefined, options);
  }

  post<T = unknown>(path: string, body: unknown, options?: RawCallOptions) {
    return this.call<T>('POST', path, body, options);
  }
}
