// Passkeys: the WebAuthn credentials approvers sign approvals with, and the rule saying which
// approvals must be signed (CNGN_SIGNED_APPROVALS). Binary values are base64url text, as WebAuthn's
// JSON forms carry them. What is signed is in approvals/approval-digest.ts; docs/passkeys.md.
import { naira } from '../format/display.js';
import { Money } from '../format/money.js';
import type { RequestKind } from './kinds.js';

/** A registered credential as the passkey book keeps it. */
export interface Passkey {
  credentialId: string;
  /** The Slack user it belongs to. */
  user: string;
  /** What its owner called it ("Bola's MacBook"). */
  name: string;
  /** The COSE public key. */
  publicKey: string;
  /** The authenticator's signature counter at its last use (0 for authenticators that keep none). */
  counter: number;
  aaguid?: string;
  transports?: string[];
  addedAt: string;
  /** The registration request that made it count and who approved it; `unsigned` on a new install. */
  registration: { requestId: string; approvedBy: string[]; unsigned?: 'first passkeys' };
  lastUsedAt?: string;
  /**
   * The assertions that moved `counter` up within their nonces' life, newest last, each by its one-time
   * nonce, the counter it set and when it counted (not sealed, like the counter): one of them met
   * again still counts.
   */
  counted?: Array<{ nonce: string; counter: number; at: string }>;
  revoked?: { at: string; by: string; note?: string };
  /** The bot's seal over the record's identity (approvals/passkey-seal.ts); none: the passkey counts as not held. */
  seal?: { key: string; value: string };
}

/** The WebAuthn assertion an approval was made with: what the bot, the executor and the auditor check. */
export interface ApprovalEvidence {
  credentialId: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
  userHandle?: string;
  /** The one-time nonce the challenge was made from, with the request's bytes. */
  nonce: string;
}

/** CNGN_SIGNED_APPROVALS: `off`, `all`, or `above:<amount>` (₦, for the kinds that move money). */
export type SigningRule = { mode: 'off' } | { mode: 'all' } | { mode: 'above'; amount: Money };

/** The kinds whose approval moves money; every other kind is always signed unless the rule is off. */
const MONEY_KINDS: readonly RequestKind[] = ['withdraw', 'redeem', 'bridge'];

/** `off` | `all` | `above:250000` → the rule. Throws a sentence on anything else. */
export function parseSigningRule(text: string): SigningRule {
  const value = text.trim().toLowerCase();
  if (value === '' || value === 'off') return { mode: 'off' };
  if (value === 'all') return { mode: 'all' };
  const above = /^above:\s*(.+)$/.exec(value);
  if (above?.[1]) {
    const amount = Money.parse(above[1]);
    if (amount.compare(Money.zero()) < 0) throw new Error('the amount after above: cannot be negative');
    return { mode: 'above', amount };
  }
  throw new Error(`"${text}" is not off, all or above:<amount>`);
}

/** Must an approval of this kind (and amount, canonical decimal ₦) be signed with a passkey? */
export function needsSignature(rule: SigningRule, kind: RequestKind | 'passkey', amount?: string): boolean {
  if (rule.mode === 'off') return false;
  if (!MONEY_KINDS.includes(kind as RequestKind)) return true;
  if (rule.mode === 'all' || amount === undefined) return true;
  return Money.parseDecimal(amount).compare(rule.amount) > 0;
}

/** The rule in words, for `/cngn policy` and App Home. */
export function describeSigningRule(rule: SigningRule): string {
  if (rule.mode === 'off') return 'Approvals are made with a click; no passkey is asked for.';
  const always = 'whitelist, settlement, delegation, unfreeze and passkey approvals';
  if (rule.mode === 'all') return `Every approval is signed with the approver's passkey (${always} too).`;
  return `Approvals of withdrawals, redemptions and bridges above ${naira(rule.amount.toString())} are signed with the approver's passkey, and ${always} always are.`;
}

/** Was `passkey` registered and not revoked at `at`? (An approval made then counts; one after, not.) */
export function heldAt(passkey: Passkey, at: Date): boolean {
  const time = at.getTime();
  if (Date.parse(passkey.addedAt) > time) return false;
  return !passkey.revoked || Date.parse(passkey.revoked.at) > time;
}

/**
 * A passkey's name as compared when someone names it (revocation): Unicode-normalised (NFKC), every run
 * of whitespace of any kind one space, trimmed, lower case. A name filed with two spaces, a tab or a
 * no-break space is then found by the words `/cngn passkey revoke` hears.
 */
export function passkeyNameKey(name: string): string {
  return name.normalize('NFKC').replace(/\s+/gu, ' ').trim().toLowerCase();
}
