// The kinds of key a passkey may have, one list for registration, the assertion check and the
// standalone audit verifier: Ed25519 (EdDSA), P-256 (ES256) and RSA (RS256), each algorithm on its own
// kind of key and curve only. Fixed rather than the library's default, which puts ML-DSA-44 first
// where the runtime has it (Node 24): a replica on another runtime, the verifier and openssl
// (docs/audit-verify.md) must all check every signature; ML-DSA's are also 3 kB, over the pages' body
// limits. The COSE key is decoded by @simplewebauthn/server's own CBOR, with the helpers the caller
// passes: the bot loads them on first use, not at start-up (docs/decisions/loaded-on-first-use.md).
// The COSE numbers below are IANA's, as the library's enums have them.
import type * as Helpers from '@simplewebauthn/server/helpers';

export type WebAuthnHelpers = typeof Helpers;

/** COSE algorithms: EdDSA, ES256, RS256. */
const EDDSA = -8;
const ES256 = -7;
const RS256 = -257;
/** COSE key fields: kty, alg, crv. */
const KTY = 1;
const ALG = 3;
const CRV = -1;

/** The algorithms a passkey may use, as COSE numbers, in the order offered to the browser. */
export const PASSKEY_ALGORITHMS: number[] = [EDDSA, ES256, RS256];

/** Each algorithm's kind of key (OKP 1, EC2 2, RSA 3) and curve (Ed25519 6, P-256 1; RSA has none). */
const KEY_OF: ReadonlyMap<number, { kty: number; crv?: number }> = new Map([
  [EDDSA, { kty: 1, crv: 6 }],
  [ES256, { kty: 2, crv: 1 }],
  [RS256, { kty: 3 }],
]);

/** A COSE public key of one of the kinds above, decoded: its algorithm and its fields by COSE number. */
export interface PasskeyKeyFields {
  alg: number;
  fields: ReadonlyMap<number, unknown>;
}

/**
 * The COSE_Key (as registered) decoded, when it is of one of the kinds above; undefined when it does
 * not decode or is of another algorithm, or its kind of key or curve is not its algorithm's.
 */
export function passkeyKeyFields(
  coseKey: Uint8Array<ArrayBuffer>,
  { decodeCredentialPublicKey }: Pick<WebAuthnHelpers, 'decodeCredentialPublicKey'>,
): PasskeyKeyFields | undefined {
  let fields: unknown;
  try {
    fields = decodeCredentialPublicKey(coseKey);
  } catch {
    return undefined;
  }
  if (!(fields instanceof Map)) return undefined;
  const alg = Number(fields.get(ALG));
  const kind = KEY_OF.get(alg);
  if (!kind || fields.get(KTY) !== kind.kty) return undefined;
  if (kind.crv !== undefined && fields.get(CRV) !== kind.crv) return undefined;
  return { alg, fields };
}
