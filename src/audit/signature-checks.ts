// One passkey signature of an approval against the signing rule, from the audit chain alone
// (approval-evidence.ts walks the chain and asks these): the rule a policy entry records (`signed
// approvals`: `all at <origin>` or `above ₦… at <origin>`) and whether an approval needed signing under
// it; then an assertion's client data (type, origin, the challenge over the figures the chain recorded),
// its authenticator data (relying party, user present and verified) and its signature by the key its
// passkey was registered with.
import { createHash } from 'node:crypto';
import { Money } from '../format/money.js';
import { signedBytes, signedChallenge } from './approval-bytes.js';
import { assertionHolds, type PasskeyKey, passkeyKey } from './passkey-keys.js';
import type { AuditEntry } from './types.js';

/**
 * What `signed approvals` says: every approval signed, or those of money above an amount (kobo), and
 * where approvers sign. Read here rather than with access/'s parser, which the standalone verifier
 * would carry the whole configuration schema with; a test holds the two to the same answers.
 */
export interface SigningPolicy {
  above?: bigint;
  origin: string;
  rpId: string;
}

/** One assertion as the entry that sent its request holds it. */
export type Signature = NonNullable<NonNullable<AuditEntry['figures']>['signatures']>[number];

/** The kinds whose approval moves money (access/passkeys.ts): the only ones `above:` spares. */
const MONEY_KINDS = new Set(['withdraw', 'redeem', 'bridge']);

/** `all at https://desk.example.com` or `above ₦1,000,000.00 at …` → the policy; undefined: off. */
export function signingPolicyOf(value: string | string[] | undefined): SigningPolicy | undefined {
  if (typeof value !== 'string') return undefined;
  const words = /^(all|above (.+)) at (\S+)$/.exec(value.trim());
  if (!words?.[3]) throw new Error(`"${value}" is not "all at <origin>" or "above <amount> at <origin>"`);
  const origin = words[3];
  const place = { origin, rpId: new URL(origin).hostname };
  return words[1] === 'all' ? place : { ...place, above: Money.parse(words[2] ?? '').kobo };
}

/** Must an approval of this kind and amount be signed under `policy` (as access/passkeys.ts says)? */
export function policyNeeds(policy: SigningPolicy, kind: string, amount: string | undefined): boolean {
  if (!MONEY_KINDS.has(kind) || policy.above === undefined || amount === undefined) return true;
  return Money.parseDecimal(amount).kobo > policy.above;
}

/**
 * Why an assertion by the passkey registered with `publicKey` (COSE, base64url) does not hold over the
 * figures of the request this entry sent, under `policy`; undefined when it does.
 */
export function assertionProblem(
  entry: AuditEntry,
  signature: Signature,
  publicKey: string,
  policy: SigningPolicy,
): string | undefined {
  const bytes = entrySignedBytes(entry);
  if (!bytes) return 'has no round recorded to rebuild what was signed';
  const authenticatorData = Buffer.from(signature.authenticatorData, 'base64url');
  const clientDataJSON = Buffer.from(signature.clientDataJSON, 'base64url');
  const problem =
    clientProblem(clientDataJSON, policy, signedChallenge(bytes, signature.nonce)) ??
    authenticatorProblem(authenticatorData, policy);
  if (problem) return problem;
  let key: PasskeyKey;
  try {
    key = passkeyKey(publicKey);
  } catch (error) {
    return `cannot be checked: ${error instanceof Error ? error.message : String(error)}`;
  }
  const holds = assertionHolds(
    key,
    authenticatorData,
    clientDataJSON,
    Buffer.from(signature.signature, 'base64url'),
  );
  return holds ? undefined : 'does not verify with the public key its passkey was registered with';
}

/** What an approver of the request this entry sent signed, rebuilt from it; undefined without its round. */
export function entrySignedBytes(entry: AuditEntry): Buffer | undefined {
  const figures = entry.figures;
  if (!figures || figures.round === undefined) return undefined;
  return signedBytes({
    id: entry.requestId ?? '',
    kind: entry.kind,
    amount: entry.amount,
    payload: figures.payload,
    purpose: figures.purpose,
    round: figures.round,
    environment: entry.environment ?? '',
    keyId: entry.keyId,
  });
}

/** The client data's type, origin and challenge, against the policy and the rebuilt challenge. */
function clientProblem(clientDataJSON: Buffer, policy: SigningPolicy, challenge: string): string | undefined {
  let client: { type?: unknown; challenge?: unknown; origin?: unknown };
  try {
    client = JSON.parse(clientDataJSON.toString('utf8'));
  } catch {
    return 'has client data that is not JSON';
  }
  if (client.type !== 'webauthn.get') return 'has client data that is not an assertion (webauthn.get)';
  if (client.origin !== policy.origin) return `was made at ${String(client.origin)}, not ${policy.origin}`;
  if (client.challenge !== challenge) {
    return 'is over other figures than the chain recorded for the request (its challenge differs)';
  }
  return undefined;
}

/** The authenticator data's relying party (SHA-256 of the host) and its user-present and -verified flags. */
function authenticatorProblem(authenticatorData: Buffer, policy: SigningPolicy): string | undefined {
  const rpIdHash = createHash('sha256').update(policy.rpId, 'utf8').digest();
  if (authenticatorData.length < 37 || !rpIdHash.equals(authenticatorData.subarray(0, 32))) {
    return `is not for relying party ${policy.rpId}`;
  }
  const flags = authenticatorData[32] ?? 0;
  if ((flags & 0x01) === 0 || (flags & 0x04) === 0) return 'was made without user verification';
  return undefined;
}
