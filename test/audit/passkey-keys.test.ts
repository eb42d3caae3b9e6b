// The standalone verifier reads exactly the kinds of passkey key registration and the assertion check
// take (Ed25519, ES256 on P-256, RS256), no more: a key of another algorithm, or on another curve than
// its algorithm's, is refused by all three alike.
import { generateKeyPairSync } from 'node:crypto';
import * as helpers from '@simplewebauthn/server/helpers';
import { describe, expect, it } from 'vitest';
import { passkeyKey } from '../../src/audit/passkey-keys.js';
import { PASSKEY_ALGORITHMS, passkeyKeyFields } from '../../src/format/passkey-key.js';

const bytes = (b64url: unknown) => Buffer.from(String(b64url), 'base64url');

function ecKey(namedCurve: string, crv: number, alg: number): Uint8Array {
  const jwk = generateKeyPairSync('ec', { namedCurve }).publicKey.export({ format: 'jwk' });
  return helpers.isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, alg],
      [-1, crv],
      [-2, bytes(jwk.x)],
      [-3, bytes(jwk.y)],
    ]),
  );
}

function okpKey(kind: 'ed25519' | 'ed448', crv: number, alg: number): Uint8Array {
  const jwk = generateKeyPairSync(kind as 'ed25519').publicKey.export({ format: 'jwk' });
  return helpers.isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 1],
      [3, alg],
      [-1, crv],
      [-2, bytes(jwk.x)],
    ]),
  );
}

function rsaKey(alg: number): Uint8Array {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
  return helpers.isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 3],
      [3, alg],
      [-1, bytes(jwk.n)],
      [-2, bytes(jwk.e)],
    ]),
  );
}

const taken: Array<[string, Uint8Array]> = [
  ['EdDSA on Ed25519', okpKey('ed25519', 6, -8)],
  ['ES256 on P-256', ecKey('P-256', 1, -7)],
  ['RS256', rsaKey(-257)],
];

const refused: Array<[string, Uint8Array]> = [
  ['ES384 on P-384', ecKey('P-384', 2, -35)],
  ['ES512 on P-521', ecKey('P-521', 3, -36)],
  ['ES256 on P-384', ecKey('P-384', 2, -7)],
  ['ES384 on P-256', ecKey('P-256', 1, -35)],
  ['EdDSA on Ed448', okpKey('ed448', 7, -8)],
  ['RS384', rsaKey(-258)],
  ['RS512', rsaKey(-259)],
  ['PS256', rsaKey(-37)],
  ['an EC2 key claiming EdDSA', ecKey('P-256', 1, -8)],
  ['not CBOR', Buffer.from('not a key')],
];

describe('the kinds of passkey key', () => {
  it('offers the browser EdDSA, ES256 and RS256 only', () => {
    expect(PASSKEY_ALGORITHMS).toEqual([-8, -7, -257]);
  });

  it.each(taken)('takes %s, in registration and the assertion check as in the verifier', (_name, key) => {
    expect(passkeyKeyFields(Buffer.from(key), helpers)).toBeDefined();
    expect(() => passkeyKey(Buffer.from(key).toString('base64url'))).not.toThrow();
  });

  it.each(refused)('refuses %s, in the verifier too', (_name, key) => {
    expect(passkeyKeyFields(Buffer.from(key), helpers)).toBeUndefined();
    expect(() => passkeyKey(Buffer.from(key).toString('base64url'))).toThrow(/not an Ed25519, P-256/);
  });
});
