// Passkey-signed approvals in counts: each approval recorded with a signature, by the request's kind,
// and each signature refused, by why (a click where one is needed, a spent challenge, what the
// assertion check found), or a request whose approvals' evidence no longer verified just before its
// service call, or that the signed audit chain records as closed or sent already. The engine tells its signing observer (approvals/signed-approvals.ts); the label values
// are the fixed words below (the table lists every SigningRefusal: a new one does not compile until it
// is here), never a request, person or credential. The passkey pages count what they refuse before
// the engine sees a signature: a link (expired, used, unknown, made in another workspace) or a
// registration the engine did not file.
import { Counter, type Registry } from 'prom-client';
import type { RequestKind } from '../access/index.js';
import type { PasskeyPageRefusal, SigningEvent, SigningRefusal } from '../approvals/index.js';

/** The reason counted for a request that failed its evidence check before sending. */
const EVIDENCE_DOES_NOT_VERIFY = 'evidence-does-not-verify';

/** The reason counted for a request not sent because the signed audit chain records it closed or sent. */
const CLOSED_ON_CHAIN = 'closed-on-signed-chain';

type RefusalReason = SigningRefusal | typeof EVIDENCE_DOES_NOT_VERIFY | typeof CLOSED_ON_CHAIN;

const REFUSAL_REASONS: Record<RefusalReason, true> = {
  'signature-required': true,
  'challenge-used': true,
  'unknown-passkey': true,
  'not-own-passkey': true,
  'revoked-passkey': true,
  'unsupported-key': true,
  'wrong-origin': true,
  'wrong-rp': true,
  'no-user-verification': true,
  'counter-went-back': true,
  'wrong-challenge': true,
  'bad-signature': true,
  [EVIDENCE_DOES_NOT_VERIFY]: true,
  [CLOSED_ON_CHAIN]: true,
};

/** The two counters, each series made at zero, and the observer that feeds them. */
export function signingCounters(
  registry: Registry,
  kinds: readonly RequestKind[],
): (event: SigningEvent) => void {
  const registers = [registry];
  const signed = new Counter({
    name: 'cngn_approval_signed_total',
    help: "Approvals recorded with the approver's passkey signature, by request kind.",
    labelNames: ['kind'] as const,
    registers,
  });
  const refused = new Counter({
    name: 'cngn_approval_signature_refusals_total',
    help: 'Approvals refused for their signature, by reason, and requests that failed just before sending because their approvals no longer held (evidence-does-not-verify) or the signed audit chain records them closed or sent already (closed-on-signed-chain).',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const kind of kinds) signed.inc({ kind }, 0);
  for (const reason of Object.keys(REFUSAL_REASONS)) refused.inc({ reason }, 0);
  return (event) => {
    if ('signed' in event) {
      signed.inc({ kind: event.signed });
    } else if ('refused' in event) {
      refused.inc({ reason: event.refused });
    } else if ('closedOnChain' in event) {
      refused.inc({ reason: CLOSED_ON_CHAIN });
    } else {
      refused.inc({ reason: EVIDENCE_DOES_NOT_VERIFY });
    }
  };
}

/** Every reason a passkey page counts a refusal by (a new one does not compile until it is here). */
const PAGE_REFUSAL_REASONS: Record<PasskeyPageRefusal, true> = {
  'link-expired': true,
  'link-used': true,
  'link-unknown': true,
  'link-other-workspace': true,
  'person-barred': true,
  'person-unchecked': true,
  'registration-refused': true,
};

/** The passkey pages' refusals by reason, each series made at zero. */
export function pageRefusalCounter(registry: Registry): (reason: PasskeyPageRefusal) => void {
  const refused = new Counter({
    name: 'cngn_passkey_page_refusals_total',
    help: 'Passkey page calls refused before a signature reached the engine: a link expired, used, unknown or made in another workspace, its person barred or unchecked with Slack, or a registration not filed.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of Object.keys(PAGE_REFUSAL_REASONS)) refused.inc({ reason }, 0);
  return (reason) => refused.inc({ reason });
}
