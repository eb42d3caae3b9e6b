// Ed25519 signatures of the audit trail, with node:crypto alone (so the standalone verifier, built from
// these files, needs nothing but Node). A public key is shown and passed as 64 hex digits (its raw 32
// bytes); a signature is base64. Each signed text names what it is, so a head's signature can never
// pass for a segment's, or the other way round.
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { canonicalJson } from './chain.js';

const HEX_KEY = /^[0-9a-f]{64}$/;

/** The public key as 64 hex digits (its raw 32 bytes). */
export function publicKeyHex(key: KeyObject): string {
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  return Buffer.from(String(jwk.x), 'base64url').toString('hex');
}

/** A public key from 64 hex digits; throws when it is not one. */
export function publicKeyFromHex(hex: string): KeyObject {
  const text = hex.trim().toLowerCase();
  if (!HEX_KEY.test(text)) throw new Error('an Ed25519 public key is 64 hex digits');
  const x = Buffer.from(text, 'hex').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

/** Whether `signature` (base64) is the key's Ed25519 signature of `text`; false for anything malformed. */
export function signatureHolds(text: string, signature: unknown, keyHex: string): boolean {
  if (typeof signature !== 'string') return false;
  try {
    return verify(
      null,
      Buffer.from(text, 'utf8'),
      publicKeyFromHex(keyHex),
      Buffer.from(signature, 'base64'),
    );
  } catch {
    return false;
  }
}

/** What a chain head's signature covers: the environment's chain, the newest place and its hash. */
export function headText(environment: string, seq: number, hash: string): string {
  return canonicalJson({ signs: 'cngn-desk audit head', environment, seq, hash });
}

/** A short form of a key or hash for messages: its first 12 hex digits. */
export const short = (hex: string): string => `${hex.slice(0, 12)}…`;

/** SHA-256 of bytes, as hex. */
export const sha256Hex = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');
