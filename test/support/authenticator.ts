// A software authenticator for tests: a real P-256 key pair from node:crypto and real ES256 signatures
// over authenticatorData ‖ SHA-256(clientDataJSON), as a platform authenticator makes them (or, asked
// for, an Ed25519 key and EdDSA signatures over those bytes themselves). The COSE key
// and the attestation object are encoded with the library's own CBOR (tests may encode; the bot never
// does). It can misbehave on request: another origin or relying party, no user verification, a
// signature counter that goes back (a cloned authenticator).
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { ApprovalEvidence, Passkey } from '../../src/access/passkeys.js';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export interface AuthenticatorOptions {
  /** The Slack user it belongs to. */
  user: string;
  rpId: string;
  origin: string;
  name?: string;
  /** The counter before its first use (default 0: the first assertion says 1). */
  counter?: number;
  /** false: keeps no counter (always 0), as many passkeys do. */
  counts?: boolean;
  /**
   * 'P-384': an ES384 key on P-384, which the library checks but the desk does not take; 'Ed25519': an
   * EdDSA key, the first the desk offers.
   */
  curve?: 'P-256' | 'P-384' | 'Ed25519';
}

/** How one assertion misbehaves. */
export interface Misbehaviour {
  origin?: string;
  rpId?: string;
  /** No user verification (UV flag clear). */
  noUv?: boolean;
  /** Use this counter for this assertion (e.g. one lower than the last). */
  counter?: number;
  /** Sign something else than what the client data says (a bad signature). */
  badSignature?: boolean;
}

/** Every authenticator made in this process, by credential id: a test's helper finds an approver's device. */
const made = new Map<string, SoftwareAuthenticator>();

export class SoftwareAuthenticator {
  /** The authenticator made in this process with this credential id, if any. */
  static withCredential(credentialId: string): SoftwareAuthenticator | undefined {
    return made.get(credentialId);
  }

  readonly credentialId = b64url(randomBytes(16));
  readonly aaguid = Buffer.alloc(16);
  private readonly privateKey: KeyObject;
  private readonly publicJwk: { x: string; y?: string };
  counter: number;

  constructor(readonly options: AuthenticatorOptions) {
    const { privateKey, publicKey } =
      options.curve === 'Ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: options.curve ?? 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.publicJwk = { x: jwk.x as string, ...(jwk.y ? { y: jwk.y } : {}) };
    this.counter = options.counter ?? 0;
    made.set(this.credentialId, this);
  }

  /** The same key, credential and counter in an object of its own: its assertions leave this one's counter. */
  copy(): SoftwareAuthenticator {
    return Object.assign(Object.create(SoftwareAuthenticator.prototype) as SoftwareAuthenticator, this);
  }

  private get p384(): boolean {
    return this.options.curve === 'P-384';
  }

  /** The hash signed over (EdDSA takes the bytes themselves: none). */
  private get digest(): string | null {
    if (this.options.curve === 'Ed25519') return null;
    return this.p384 ? 'sha384' : 'sha256';
  }

  /** The COSE public key (EC2, ES256 on P-256; ES384 on P-384; OKP, EdDSA on Ed25519). */
  coseKey(): Uint8Array {
    const x = Buffer.from(this.publicJwk.x, 'base64url');
    if (this.options.curve === 'Ed25519') {
      return isoCBOR.encode(
        new Map<number, number | Uint8Array>([
          [1, 1],
          [3, -8],
          [-1, 6],
          [-2, x],
        ]),
      );
    }
    const key = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, this.p384 ? -35 : -7],
      [-1, this.p384 ? 2 : 1],
      [-2, x],
      [-3, Buffer.from(this.publicJwk.y ?? '', 'base64url')],
    ]);
    return isoCBOR.encode(key);
  }

  /** The record the passkey book keeps once its registration is approved. */
  passkey(overrides: Partial<Passkey> = {}): Passkey {
    return {
      credentialId: this.credentialId,
      user: this.options.user,
      name: this.options.name ?? `${this.options.user}'s authenticator`,
      publicKey: b64url(this.coseKey()),
      counter: this.counter,
      aaguid: '00000000-0000-0000-0000-000000000000',
      transports: ['internal'],
      addedAt: new Date(Date.now() - 60_000).toISOString(),
      registration: { requestId: 'AR-REGISTER', approvedBy: ['U_SOMEONE'] },
      ...overrides,
    };
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Uint8Array): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** An assertion over `challenge` (base64url) made with the one-time `nonce`, as the page sends it back. */
  assert(challenge: string, nonce: string, bad: Misbehaviour = {}): ApprovalEvidence {
    if (this.options.counts !== false) this.counter += 1;
    const counter = bad.counter ?? (this.options.counts === false ? 0 : this.counter);
    const flags = 0x01 | (bad.noUv ? 0 : 0x04);
    const authenticatorData = this.authData(bad.rpId ?? this.options.rpId, flags, counter);
    const clientDataJSON = this.clientData('webauthn.get', challenge, bad.origin ?? this.options.origin);
    const signed = Buffer.concat([authenticatorData, sha256(bad.badSignature ? 'other' : clientDataJSON)]);
    return {
      credentialId: this.credentialId,
      authenticatorData: b64url(authenticatorData),
      clientDataJSON: b64url(clientDataJSON),
      signature: b64url(sign(this.digest, signed, this.privateKey)),
      userHandle: b64url(Buffer.from(this.options.user, 'utf8')),
      nonce,
    };
  }

  /**
   * A registration response (RegistrationResponseJSON, attestation `none`) over `challenge`, as
   * @simplewebauthn/browser's startRegistration returns it, for verifyRegistrationResponse.
   */
  registrationResponse(challenge: string, bad: Pick<Misbehaviour, 'origin' | 'rpId' | 'noUv'> = {}) {
    const id = Buffer.from(this.credentialId, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const attested = Buffer.concat([this.aaguid, idLength, id, this.coseKey()]);
    const flags = 0x01 | (bad.noUv ? 0 : 0x04) | 0x40;
    const authData = this.authData(bad.rpId ?? this.options.rpId, flags, this.counter, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    const clientDataJSON = this.clientData('webauthn.create', challenge, bad.origin ?? this.options.origin);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key' as const,
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal' as const],
      },
    };
  }
}
