// What an approver's passkey signs: the request as the store holds it, in documented bytes, so the bot,
// the executor and an auditor with only the archive compute the same challenge (docs/passkeys.md).
// The bytes and the challenge are built in audit/approval-bytes.ts, which the standalone verifier
// uses too, from the fields the audit entry records: here from the request.
import { signedBytes, signedChallenge } from '../audit/index.js';
import type { ApprovalRequest } from './types.js';

/** The canonical bytes of `request` as an approver signs it (audit/approval-bytes.ts). */
export function approvalBytes(request: ApprovalRequest): Buffer {
  return signedBytes({
    id: request.id,
    kind: request.kind,
    amount: request.amount,
    payload: { ...request.payload },
    purpose: request.purpose,
    round: request.round,
    environment: request.environment,
    keyId: request.keyId,
  });
}

/** The WebAuthn challenge for `bytes` and a one-time `nonce`, base64url (as WebAuthn's JSON carries it). */
export const approvalChallenge = signedChallenge;
