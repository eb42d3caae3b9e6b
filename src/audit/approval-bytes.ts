// What an approver's passkey signs, as bytes built from plain fields: the engine builds them from the
// request as the store holds it (approvals/approval-digest.ts), the standalone verifier from the audit
// entry that sent it (audit/approval-evidence.ts). One function, so the two cannot differ; the format
// is documented in docs/passkeys.md.
//
//   cngn-desk approval v1\n
//   id=<request id>\n
//   kind=<kind>\n
//   amount_kobo=<integer kobo, or empty>\n
//   destination=<the payload as canonical JSON, less a bridge's callback URL>\n
//   network=<networkId, destinationNetworkId, or empty>\n
//   purpose=<purpose, or empty>\n
//   round=<round>\n
//   environment=<service environment>\n
//   key=<the service key's fingerprint (keyId), or empty>\n
//
// Every value is UTF-8; a value never holds a newline (JSON escapes them; ids and names cannot).
// The WebAuthn challenge is SHA-256(bytes ‖ 0x00 ‖ UTF-8 nonce), base64url.
import { createHash } from 'node:crypto';
import { Money } from '../format/money.js';
import { canonicalJson } from './chain.js';

const HEADER = 'cngn-desk approval v1';

/** The fields of a request that an approver signs. */
export interface SignedFields {
  id: string;
  kind: string;
  /** Canonical decimal ₦, or absent. */
  amount?: string | undefined;
  payload: Record<string, unknown>;
  purpose?: string | undefined;
  round: number;
  environment: string;
  keyId?: string | undefined;
}

const oneLine = (value: string) => value.replace(/[\r\n]/g, ' ');

function networkOf(payload: Record<string, unknown>): string {
  const network = payload.networkId ?? payload.destinationNetworkId;
  return typeof network === 'string' ? network : '';
}

/** The canonical bytes of a request as an approver signs it (see the top of this file). */
export function signedBytes(fields: SignedFields): Buffer {
  const { callbackUrl: _token, ...payload }: Record<string, unknown> = { ...fields.payload };
  const lines = [
    HEADER,
    `id=${fields.id}`,
    `kind=${fields.kind}`,
    `amount_kobo=${fields.amount ? Money.parseDecimal(fields.amount).kobo.toString() : ''}`,
    `destination=${canonicalJson(payload)}`,
    `network=${networkOf(payload)}`,
    `purpose=${fields.purpose ?? ''}`,
    `round=${fields.round}`,
    `environment=${fields.environment}`,
    `key=${fields.keyId ?? ''}`,
  ];
  return Buffer.from(`${lines.map(oneLine).join('\n')}\n`, 'utf8');
}

/** The WebAuthn challenge for `bytes` and a one-time `nonce`, base64url (as WebAuthn's JSON carries it). */
export function signedChallenge(bytes: Uint8Array, nonce: string): string {
  return createHash('sha256')
    .update(bytes)
    .update(Buffer.from([0]))
    .update(nonce, 'utf8')
    .digest('base64url');
}
