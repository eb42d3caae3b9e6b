// Why a passkey-signed approval did not count, said privately to the approver: the bot's own words,
// never the browser's or the authenticator's, and always that nothing changed.
import type { Refusal, SigningRefusal } from '../../../approvals/index.js';

/** The refusals of a signed approval (the engine's own and those of the assertion check). */
export type PasskeyRefusal = SigningRefusal;

const WHY: Record<PasskeyRefusal, string> = {
  'signature-required': 'must be approved with your passkey, not a click: open its signing link',
  'challenge-used': 'was signed with a link that was already used or has run out: open a new signing link',
  'unknown-passkey': 'was signed with a passkey this desk does not know: register it first (`/cngn passkey`)',
  'not-own-passkey': 'was signed with a passkey registered to someone else',
  'revoked-passkey': 'was signed with a passkey that has been revoked',
  'unsupported-key':
    'was signed with a passkey whose kind of key the desk does not take (Ed25519, P-256 or RSA): register another',
  'wrong-origin': 'was signed on a page that is not this desk’s signing page',
  'wrong-rp': 'was signed for another site than this desk’s signing page',
  'no-user-verification': 'was signed without your fingerprint, face or PIN, which the desk requires',
  'counter-went-back':
    'was signed by an authenticator whose use counter went backwards, as a copied one would; tell another approver',
  'wrong-challenge': 'was signed over other figures than the request holds now: open its signing link again',
  'bad-signature': 'carried a signature that does not check out',
};

export function isPasskeyRefusal(reason: Refusal): reason is PasskeyRefusal {
  return reason in WHY;
}

/** "<title> was signed … ; nothing was approved." */
export function passkeyRefusalText(reason: PasskeyRefusal, title: string): string {
  return `Your approval of ${title} ${WHY[reason]}, so it did not count and nothing changed.`;
}
