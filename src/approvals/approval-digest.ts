// What an approver's passkey signs: the request as the store holds it, in documented bytes, so the bot,
// the executor and an auditor with only the archive compute the same challenge (docs/passkeys.md).
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
// The WebAuthn challenge is SHA-256(bytes ‖ 0x00 ‖ UTF-8 nonce), the nonce one-time and kept with
// the assertion.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/index.js';
import { Money } from '../format/money.js';
import type { ApprovalRequest } from './types.js';

const HEADER = 'cngn-desk approval v1';

const oneLine = (value: string) => value.replace(/[\r\n]/g, ' ');

function networkOf(payload: Record<string, unknown>): string {
  const network = payload.networkId ?? payload.destinationNetworkId;
  return typeof network === 'string' ? network : '';
}

/** The canonical bytes of `request` as an approver signs it (see the top of this file). */
export function approvalBytes(request: ApprovalRequest): Buffer {
  const { callbackUrl: _token, ...payload }: Record<string, unknown> = { ...request.payload };
  const lines = [
    HEADER,
    `id=${request.id}`,
    `kind=${request.kind}`,
    `amount_kobo=${request.amount ? Money.parseDecimal(request.amount).kobo.toString() : ''}`,
    `destination=${canonicalJson(payload)}`,
    `network=${networkOf(payload)}`,
    `purpose=${request.purpose ?? ''}`,
    `round=${request.round}`,
    `environment=${request.environment}`,
    `key=${request.keyId ?? ''}`,
  ];
  return Buffer.from(`${lines.map(oneLine).join('\n')}\n`, 'utf8');
}

/** The WebAuthn challenge for `bytes` and a one-time `nonce`, base64url (as WebAuthn's JSON carries it). */
export function approvalChallenge(bytes: Uint8Array, nonce: string): string {
  return createHash('sha256')
    .update(bytes)
    .update(Buffer.from([0]))
    .update(nonce, 'utf8')
    .digest('base64url');
}
