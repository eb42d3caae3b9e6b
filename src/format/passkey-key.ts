// The kinds of key a passkey may have, one list for registration, the assertion check and the
// standalone audit verifier: Ed25519 (EdDSA), P-256 (ES256) and RSA (RS256), each algorithm on its own
// kind of key and curve only. Fixed rather than the library's default, which puts ML-DSA-44 first
// where the runtime has it (Node 24): a replica on another runtime, the verifier and openssl
// (docs/audit-verify.md) must all check every signature; ML-DSA's are also 3 kB, over the pages' body
// limits. The COSE key is decoded by @simplewebauthn/server's own CBOR.
import { COSEALG, cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';

/** The algorithms a passkey may use, as COSE numbers, in the order offered to the browser. */
export const PASSKEY_ALGORITHMS: number[] = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];

/** Each algorithm's kind of key and curve (an RSA key has none). */
const KEY_OF: ReadonlyMap<number, { kty: number; crv?: number }> = new Map([
  [COSEALG.EdDSA, { kty: cose.COSEKTY.OKP, crv: cose.COSECRV.ED25519 }],
  [COSEALG.ES256, { kty: cose.COSEKTY.EC2, crv: cose.COSECRV.P256 }],
  [COSEALG.RS256, { kty: cose.COSEKTY.RSA }],
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
export function passkeyKeyFields(coseKey: Uint8Array<ArrayBuffer>): PasskeyKeyFields | undefined {
  let fields: unknown;
  try {
    fields = decodeCredentialPublicKey(coseKey);
  } catch {
    return undefined;
  }
  if (!(fields instanceof Map)) return undefined;
  const alg = Number(fields.get(cose.COSEKEYS.alg));
  const kind = KEY_OF.get(alg);
  if (!kind || fields.get(cose.COSEKEYS.kty) !== kind.kty) return undefined;
  if (kind.crv !== undefined && fields.get(cose.COSEKEYS.crv) !== kind.crv) return undefined;
  return { alg, fields };
}
