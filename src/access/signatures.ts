// Checking a passkey's assertion (an ApprovalEvidence) for one approver against their registered
// passkey and the challenge the bot expects. Origin, challenge, relying party, user verification and
// the signature counter are each read from the decoded client and authenticator data first, so every
// refusal says what was wrong; the signature itself is checked by @simplewebauthn/server.
import { createHash } from 'node:crypto';
import { passkeyKeyFields, type WebAuthnHelpers } from '../format/passkey-key.js';
import type { ApprovalEvidence, Passkey } from './passkeys.js';

/** Why an assertion does not count. */
export type SignatureRefusal =
  | 'unknown-passkey'
  | 'not-own-passkey'
  | 'revoked-passkey'
  | 'unsupported-key'
  | 'wrong-origin'
  | 'wrong-rp'
  | 'no-user-verification'
  | 'counter-went-back'
  | 'wrong-challenge'
  | 'bad-signature';

export type SignatureCheck = { ok: true; counter: number } | { ok: false; reason: SignatureRefusal };

/** Where approvers' browsers sign: the origin of the signing pages and its host, the relying party id. */
export interface SigningPlace {
  rpId: string;
  origin: string;
}

export interface EvidenceCheck extends SigningPlace {
  /** The Slack user whose approval this is. */
  user: string;
  /** The passkey the book holds for the evidence's credential id (undefined: none). */
  passkey: Passkey | undefined;
  /** The base64url challenge the bot expects (approvalChallenge). */
  challenge: string;
  /** The passkey must have been held at this time (heldAt) rather than be unrevoked now. */
  heldAt?: Date;
  /** Skip the counter check (a re-check of an assertion whose counter was already recorded). */
  skipCounter?: boolean;
}

/** The passkey's own problems: not in the book, someone else's, revoked, or a key registration refuses. */
function passkeyProblem(
  evidence: ApprovalEvidence,
  check: EvidenceCheck,
  helpers: WebAuthnHelpers,
): SignatureRefusal | undefined {
  const { passkey } = check;
  if (!passkey || passkey.credentialId !== evidence.credentialId) return 'unknown-passkey';
  if (passkey.user !== check.user) return 'not-own-passkey';
  const at = check.heldAt?.getTime();
  const revoked = passkey.revoked ? Date.parse(passkey.revoked.at) : undefined;
  if (revoked !== undefined && (at === undefined || revoked <= at)) return 'revoked-passkey';
  if (at !== undefined && Date.parse(passkey.addedAt) > at) return 'unknown-passkey';
  // Registration takes only these keys; the library would check a signature by any key it knows.
  if (!takenKey(passkey.publicKey, helpers)) return 'unsupported-key';
  return undefined;
}

/** Whether a stored public key decodes to one registration takes (a malformed one never throws here). */
function takenKey(publicKey: string, helpers: WebAuthnHelpers): boolean {
  try {
    return passkeyKeyFields(helpers.isoBase64URL.toBuffer(publicKey), helpers) !== undefined;
  } catch {
    return false;
  }
}

/** What the client and authenticator data say, checked one by one; undefined when they hold. */
function dataProblem(
  evidence: ApprovalEvidence,
  check: EvidenceCheck,
  { decodeClientDataJSON, isoBase64URL, parseAuthenticatorData }: WebAuthnHelpers,
): SignatureRefusal | undefined {
  let client: ReturnType<typeof decodeClientDataJSON>;
  let auth: ReturnType<typeof parseAuthenticatorData>;
  try {
    client = decodeClientDataJSON(evidence.clientDataJSON);
    auth = parseAuthenticatorData(isoBase64URL.toBuffer(evidence.authenticatorData));
  } catch {
    return 'bad-signature';
  }
  // Decoded JSON may be any value: a crafted `null` must be refused here, not throw past the caller.
  if (typeof client !== 'object' || client === null) return 'bad-signature';
  if (client.type !== 'webauthn.get') return 'bad-signature';
  if (client.origin !== check.origin) return 'wrong-origin';
  if (client.challenge !== check.challenge) return 'wrong-challenge';
  const rpIdHash = createHash('sha256').update(check.rpId, 'utf8').digest();
  if (!rpIdHash.equals(Buffer.from(auth.rpIdHash))) return 'wrong-rp';
  if (!auth.flags.up || !auth.flags.uv) return 'no-user-verification';
  const stored = check.passkey?.counter ?? 0;
  if (!check.skipCounter && (auth.counter > 0 || stored > 0) && auth.counter <= stored) {
    return 'counter-went-back';
  }
  return undefined;
}

/**
 * Does `evidence` count as `check.user`'s approval over `check.challenge`? Ok with the authenticator's
 * new signature counter, or the first reason it does not.
 */
export async function verifyEvidence(
  evidence: ApprovalEvidence,
  check: EvidenceCheck,
): Promise<SignatureCheck> {
  // The library is loaded on the first check (docs/decisions/loaded-on-first-use.md).
  const helpers = await import('@simplewebauthn/server/helpers');
  const problem = passkeyProblem(evidence, check, helpers) ?? dataProblem(evidence, check, helpers);
  if (problem) return { ok: false, reason: problem };
  const passkey = check.passkey as Passkey;
  const { verifyAuthenticationResponse } = await import('@simplewebauthn/server');
  try {
    const verified = await verifyAuthenticationResponse({
      response: {
        id: evidence.credentialId,
        rawId: evidence.credentialId,
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          authenticatorData: evidence.authenticatorData,
          clientDataJSON: evidence.clientDataJSON,
          signature: evidence.signature,
          ...(evidence.userHandle ? { userHandle: evidence.userHandle } : {}),
        },
      },
      expectedChallenge: check.challenge,
      expectedOrigin: check.origin,
      expectedRPID: check.rpId,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: helpers.isoBase64URL.toBuffer(passkey.publicKey),
        // The counter was checked above (or is skipped): the library is given none to compare.
        counter: check.skipCounter ? 0 : passkey.counter,
      },
    });
    if (!verified.verified) return { ok: false, reason: 'bad-signature' };
    return { ok: true, counter: verified.authenticationInfo.newCounter };
  } catch {
    return { ok: false, reason: 'bad-signature' };
  }
}
