// A registered passkey's public key as the audit chain holds it (COSE_Key, base64url, as the browser's
// registration gave it), turned into a node:crypto key, and the check of one WebAuthn assertion's
// signature with it: over authenticatorData ‖ SHA-256(clientDataJSON). The COSE key is decoded by
// @simplewebauthn/server's own CBOR, and only the kinds of key registration takes are read; the
// signature is checked by node:crypto, synchronously, so the standalone verifier stays one plain pass
// over the files.
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { passkeyKeyFields } from '../format/passkey-key.js';

/** A passkey's key, and how its signatures are checked (the hash, or none for Ed25519). */
export interface PasskeyKey {
  key: KeyObject;
  hash: string | null;
}

const b64url = (value: unknown): string => {
  if (!(value instanceof Uint8Array)) throw new Error('a coordinate is missing');
  return Buffer.from(value).toString('base64url');
};

/**
 * The COSE_Key (base64url) as a node:crypto public key; throws a sentence when it is not one we check:
 * exactly the kinds of key registration takes (format/passkey-key.ts), no more.
 */
export function passkeyKey(coseBase64url: string): PasskeyKey {
  const decoded = passkeyKeyFields(Buffer.from(coseBase64url, 'base64url'), { decodeCredentialPublicKey });
  if (!decoded) throw new Error('the COSE key is not an Ed25519, P-256 (ES256) or RSA (RS256) key');
  const { alg, fields } = decoded;
  const { x, y, n, e } = cose.COSEKEYS;
  if (alg === cose.COSEALG.ES256) {
    const jwk = { kty: 'EC', crv: 'P-256', x: b64url(fields.get(x)), y: b64url(fields.get(y)) };
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), hash: 'sha256' };
  }
  if (alg === cose.COSEALG.EdDSA) {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: b64url(fields.get(x)) };
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), hash: null };
  }
  const jwk = { kty: 'RSA', n: b64url(fields.get(n)), e: b64url(fields.get(e)) };
  return { key: createPublicKey({ key: jwk, format: 'jwk' }), hash: 'sha256' };
}

/** The key as a PEM SubjectPublicKeyInfo, as `openssl dgst -verify` reads it. */
export function passkeyPem(coseBase64url: string): string {
  return passkeyKey(coseBase64url).key.export({ type: 'spki', format: 'pem' }).toString();
}

/** What the authenticator signed: authenticatorData ‖ SHA-256(clientDataJSON). */
function assertionData(authenticatorData: Buffer, clientDataJSON: Buffer): Buffer {
  return Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]);
}

/** Does `signature` (ES256's DER, as WebAuthn carries it) hold over the assertion's data with `key`? */
export function assertionHolds(
  key: PasskeyKey,
  authenticatorData: Buffer,
  clientDataJSON: Buffer,
  signature: Buffer,
): boolean {
  try {
    return verify(key.hash, assertionData(authenticatorData, clientDataJSON), key.key, signature);
  } catch {
    return false;
  }
}
