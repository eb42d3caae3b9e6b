// A software authenticator's registration: a real P-256 key pair from node:crypto, its public key as
// COSE, the attested credential data in authenticator data, and a `none` attestation object encoded
// with @simplewebauthn's CBOR, as a browser's navigator.credentials.create() returns it (WebAuthn JSON).
// Options make the bad ones a page must refuse: no user verification, another origin or challenge.
import { createHash, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

export const TEST_RP_ID = 'signing.example.test';
const TEST_ORIGIN = `https://${TEST_RP_ID}`;

/** The engine's `signing` option for these pages (the rule is part A's concern: off here). */
export const TEST_SIGNING = { rule: { mode: 'off' as const }, rpId: TEST_RP_ID, origin: TEST_ORIGIN };

/** A credential the software authenticator made: its id, and its private key (for assertions). */
export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface RegistrationOptions {
  challenge: string;
  origin?: string;
  rpId?: string;
  /** The user-verified flag (default set). */
  userVerified?: boolean;
  counter?: number;
  /** Register this credential again (default: a new one). */
  credential?: SoftCredential;
}

/** The COSE_Key of an EC2 P-256 public key (kty 2, alg -7 ES256, crv 1, x, y). */
function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  const coordinate = (value: string | undefined) => new Uint8Array(Buffer.from(value ?? '', 'base64url'));
  return isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, coordinate(jwk.x)],
      [-3, coordinate(jwk.y)],
    ]),
  );
}

/** rpIdHash ‖ flags (UP, UV, AT) ‖ counter ‖ aaguid (zero) ‖ id length ‖ id ‖ COSE key. */
function authenticatorData(rpId: string, credential: SoftCredential, userVerified: boolean, counter: number) {
  const id = Buffer.from(credential.id, 'base64url');
  const flags = 0x01 | (userVerified ? 0x04 : 0) | 0x40;
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(id.length);
  return Buffer.concat([
    createHash('sha256').update(rpId, 'utf8').digest(),
    Buffer.from([flags]),
    count,
    Buffer.alloc(16),
    length,
    id,
    Buffer.from(coseKey(credential.publicKey)),
  ]);
}

/** A new credential: a fresh P-256 key pair and a random id. */
function newCredential(): SoftCredential {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { id: randomBytes(16).toString('base64url'), privateKey, publicKey };
}

/** The browser's registration response for `challenge`, and the credential it registered. */
export function register(options: RegistrationOptions): {
  response: RegistrationResponseJSON;
  credential: SoftCredential;
} {
  const credential = options.credential ?? newCredential();
  const clientData = {
    type: 'webauthn.create',
    challenge: options.challenge,
    origin: options.origin ?? TEST_ORIGIN,
    crossOrigin: false,
  };
  const authData = authenticatorData(
    options.rpId ?? TEST_RP_ID,
    credential,
    options.userVerified ?? true,
    options.counter ?? 0,
  );
  const attestationObject = isoCBOR.encode(
    new Map<string, string | Map<string, string> | Uint8Array>([
      ['fmt', 'none'],
      ['attStmt', new Map<string, string>()],
      ['authData', new Uint8Array(authData)],
    ]),
  );
  const response: RegistrationResponseJSON = {
    id: credential.id,
    rawId: credential.id,
    type: 'public-key',
    response: {
      clientDataJSON: Buffer.from(JSON.stringify(clientData), 'utf8').toString('base64url'),
      attestationObject: Buffer.from(attestationObject).toString('base64url'),
      transports: ['internal'],
    },
    clientExtensionResults: {},
  };
  return { response, credential };
}
