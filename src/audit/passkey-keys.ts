// A registered passkey's public key as the audit chain holds it (COSE_Key, base64url, as the browser's
// registration gave it), turned into a node:crypto key, and the check of one WebAuthn assertion's
// signature with it: over authenticatorData ‖ SHA-256(clientDataJSON). The COSE key is decoded by
// @simplewebauthn/server's own CBOR; the signature is checked by node:crypto, synchronously, so the
// standalone verifier stays one plain pass over the files.
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';

/** A passkey's key, and how its signatures are checked (the hash, or none for Ed25519). */
export interface PasskeyKey {
  key: KeyObject;
  hash: string | null;
}

const EC_CURVES: Record<number, string> = { 1: 'P-256', 2: 'P-384', 3: 'P-521' };
const EC_HASHES: Record<number, string> = { [-7]: 'sha256', [-35]: 'sha384', [-36]: 'sha512' };
const RSA_HASHES: Record<number, string> = { [-257]: 'sha256', [-258]: 'sha384', [-259]: 'sha512' };

const b64url = (value: unknown): string => {
  if (!(value instanceof Uint8Array)) throw new Error('a coordinate is missing');
  return Buffer.from(value).toString('base64url');
};

/** The COSE_Key (base64url) as a node:crypto public key; throws a sentence when it is not one we check. */
export function passkeyKey(coseBase64url: string): PasskeyKey {
  const map = decodeCredentialPublicKey(Buffer.from(coseBase64url, 'base64url')) as Map<number, unknown>;
  const { kty, alg, crv, x, y, n, e } = cose.COSEKEYS;
  const type = map.get(kty);
  const algorithm = Number(map.get(alg));
  if (type === cose.COSEKTY.EC2 && EC_HASHES[algorithm] && EC_CURVES[Number(map.get(crv))]) {
    const jwk = {
      kty: 'EC',
      crv: EC_CURVES[Number(map.get(crv))],
      x: b64url(map.get(x)),
      y: b64url(map.get(y)),
    };
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), hash: EC_HASHES[algorithm] ?? null };
  }
  if (
    type === cose.COSEKTY.OKP &&
    algorithm === cose.COSEALG.EdDSA &&
    map.get(crv) === cose.COSECRV.ED25519
  ) {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: b64url(map.get(x)) };
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), hash: null };
  }
  if (type === cose.COSEKTY.RSA && RSA_HASHES[algorithm]) {
    const jwk = { kty: 'RSA', n: b64url(map.get(n)), e: b64url(map.get(e)) };
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), hash: RSA_HASHES[algorithm] ?? null };
  }
  throw new Error(`a COSE key of type ${String(type)}, algorithm ${algorithm} is not one this check reads`);
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
