// A request's newest step in words: the reply in its message's thread, and the private note its
// requester gets for the steps that concern them. Pure: the request in, text out; every outside text
// is escaped where it enters mrkdwn.

import type { ApprovalRequest } from '../../../approvals/index.js';
import {
  CONFLICT_ACTION,
  CONFLICT_RESOLVED,
  ENDED_NOTE_START,
  HELD_ACTION,
  LOOKED_UP_BEFORE_SENDING,
  noticeText,
  PASSKEY_REVOKED_ACTION,
  REVOKED_ACTION,
  STOPPED_BUT_FOUND_ACTION,
  TIERS_RAISED_ACTION,
  WITHDRAWN_ACTION,
  WITHDRAWN_NOTE_START,
} from '../../../approvals/index.js';
import { lagosTime, naira } from '../../../format/display.js';
import { escapeMrkdwn, escapeOwnSentence, mentionUser } from '../../../format/mrkdwn.js';
import { UNFREEZE_STEP_WORDS, unfreezeNotice } from '../../ui/freeze.js';
import { IN_THE_BOT, requestTitle } from '../../ui/words.js';
import { approverWords, whyTheBot } from './message.js';
import { lifecycleThreadReply, requesterReminderNotice } from './reminders.js';

/** The thread reply for the request's newest step: the engine's notice as said, or the step in words. */
export function threadReply(request: ApprovalRequest): string {
  const notice = noticeText(request);
  // A stopped request's match names the service's references: outside text.
  if (notice && request.history.at(-1)?.action === STOPPED_BUT_FOUND_ACTION) return escapeMrkdwn(notice);
  return notice ? escapeOwnSentence(notice) : (lifecycleThreadReply(request) ?? stepText(request));
}

/** Who a step went back for: a registration's owner no longer one who may hold a passkey, or an approver who left. */
function leftWords(request: ApprovalRequest, user: string): string {
  const owner = request.kind === 'passkey' && request.payload.user === user;
  return `${mentionUser(user)} ${owner ? 'is no longer an approver or a delegate' : 'left the pool'}`;
}

/** The request's newest step in words, with who took it and its note. */
export function stepText(request: ApprovalRequest): string {
  const step = request.history.at(-1);
  if (!step) return escapeMrkdwn(requestTitle(request));
  const by = step.actor ? ` by ${approverWords({ user: step.actor, onBehalfOf: step.onBehalfOf })}` : '';
  const note = step.note ? ` — ${escapeMrkdwn(step.note)}` : '';
  const whole = wholeSentence(request, step, by, note);
  if (whole !== undefined) return whole;
  const left = step.leftPool ? ` (${leftWords(request, step.leftPool)})` : '';
  const words: Record<string, string> = {
    filed: 'Filed',
    'approval-added': 'Approval added',
    approved: 'Approved',
    'sent-back': 'Sent back to the approvers (approvals cleared)',
    rejected: 'Rejected',
    cancelled: 'Cancelled',
    expired: 'Expired without enough approvals',
    executing: 'Sending to the service (one call, never retried)',
    sent: 'Sent; the service gave reference',
    completed: 'Completed',
    failed: nothingSent(request) ? 'Failed — nothing sent' : 'Failed',
    'outcome-unknown':
      'No clear answer from the service: marked outcome unknown; it will be looked up, never resent',
    interrupted: 'The bot restarted during the call: outcome unknown; it will be looked up, never resent',
    released: 'The bot restarted before sending it: nothing was sent, so it is sent now',
    reconciled: 'Found in the transaction list',
    [LOOKED_UP_BEFORE_SENDING]: 'Approved a while ago, so looked up before sending',
    [CONFLICT_RESOLVED]: 'Conflicting reports resolved, as checked with the service',
    reminder: 'Approvers reminded',
    extended: 'Extended',
    [REVOKED_ACTION]: 'Delegation revoked',
    [WITHDRAWN_ACTION]: 'Cancelled',
    [PASSKEY_REVOKED_ACTION]: 'Passkey revoked',
    [HELD_ACTION]: 'Held: sends are frozen',
  };
  const said = OWN_STORE_STEP_WORDS[request.kind]?.[step.action] ?? words[step.action];
  return `${said ?? escapeMrkdwn(step.action)}${by}${note}${left}`;
}

/** The steps said in a sentence of their own rather than as a word with who and why; undefined otherwise. */
function wholeSentence(
  request: ApprovalRequest,
  step: ApprovalRequest['history'][number],
  by: string,
  note: string,
): string | undefined {
  if (step.action === 'check-interrupted') {
    return `The final approval${by} was interrupted while re-checking the figures (the bot restarted); nothing was approved: approve again`;
  }
  // Its note is the whole sentence ("Waiting for one more approval: the approval tiers were raised…").
  if (step.action === TIERS_RAISED_ACTION && step.note) return escapeMrkdwn(step.note);
  if (step.action === WITHDRAWN_ACTION && !step.actor)
    return byTheBot('Cancelled by the bot', step.note, WITHDRAWN_NOTE_START);
  if (step.action === REVOKED_ACTION && !step.actor)
    return byTheBot('Delegation ended by the bot', step.note, ENDED_NOTE_START);
  if (stoppedAfterApproval(request)) {
    const what = step.action === 'rejected' ? 'Rejected' : 'Cancelled';
    if (IN_THE_BOT.has(request.kind)) return `${what}${by} after approval: it will not take effect${note}`;
    return `${what}${by} after approval, before sending: it will not be sent${note}`;
  }
  return undefined;
}

/** Its newest step rejected or cancelled it from approved: a person stopped it before its one call. */
function stoppedAfterApproval(request: ApprovalRequest): boolean {
  const step = request.history.at(-1);
  if (step?.action !== 'rejected' && step?.action !== 'cancelled') return false;
  return request.history.at(-2)?.state === 'approved';
}

/**
 * A delegation step the bot took with no person behind it (`what`: "Cancelled by the bot" for a waiting
 * one, "Delegation ended by the bot" for one in effect): why, once (its note begins by saying the bot
 * did it, with `opening`).
 */
function byTheBot(what: string, note: string | undefined, opening: string): string {
  const why = whyTheBot(note, opening);
  return why ? `${what} — ${escapeMrkdwn(why)}` : what;
}

/** The end of a failure note that says what the requester's notice says first (the bot's notes end so). */
const SAYS_NOTHING_SENT = /(;|,? so) nothing was sent\.?$/;

/** Failed with nothing sent to the service (a delegation or an unfreeze is never sent: it does not say so). */
function nothingSent(request: ApprovalRequest): boolean {
  return (
    request.kind !== 'delegation' &&
    request.kind !== 'unfreeze' &&
    request.kind !== 'passkey' &&
    request.state === 'failed' &&
    request.outcome?.nothingSent === true
  );
}

/** A delegation and an unfreeze are written to the bot's own store, never sent to the service: their steps say so. */
const OWN_STORE_STEP_WORDS: Partial<Record<ApprovalRequest['kind'], Record<string, string>>> = {
  delegation: {
    executing:
      "Putting the delegation in effect (written to the bot's own store; nothing goes to the service)",
    'outcome-unknown':
      "Not known whether the delegation was written: the bot's store is checked; it is never written twice",
    interrupted:
      "The bot restarted while putting the delegation in effect: the bot's store is checked for it; it is never written twice",
  },
  unfreeze: UNFREEZE_STEP_WORDS,
  passkey: {
    executing: "Writing the passkey to the bot's passkey book (nothing goes to the service)",
    'outcome-unknown':
      'Not known whether the passkey was written: the book is checked; it is never written twice',
    interrupted:
      'The bot restarted while writing the passkey: the book is checked for it; it is never written twice',
  },
};

/** What the requester is told privately, or undefined when this step is not theirs to hear. */
export function requesterNotice(request: ApprovalRequest): string | undefined {
  const step = request.history.at(-1);
  const title = escapeMrkdwn(requestTitle(request));
  const by = step?.actor ? approverWords({ user: step.actor, onBehalfOf: step.onBehalfOf }) : 'someone';
  if (request.kind === 'delegation') return delegationNotice(request, by);
  if (request.kind === 'unfreeze')
    return unfreezeNotice(request, by, approverWords(request.approvals.at(-1) ?? { user: by }));
  switch (step?.action) {
    case 'approved':
      return `Your request ${title} was approved by ${by}.`;
    case 'rejected':
      return `Your request ${title} was rejected by ${by}: ${escapeMrkdwn(request.reason ?? 'no reason given')}.`;
    case 'sent-back':
      return `Your request ${title} went back to the approvers: ${escapeMrkdwn(request.reason ?? '')}.`;
    case 'sent':
      return `Your request ${title} was sent to the service (reference ${escapeMrkdwn(request.outcome?.reference ?? '—')}).`;
    case 'completed':
      return `Your request ${title} has settled: completed.`;
    case 'failed': {
      const reason = request.outcome?.reason ?? 'see the approvals channel';
      return nothingSent(request)
        ? `Your request ${title} failed, nothing was sent: ${escapeMrkdwn(reason.replace(SAYS_NOTHING_SENT, ''))}.`
        : `Your request ${title} failed: ${escapeMrkdwn(reason)}.`;
    }
    case 'expired':
      // Approved when it expired (a freeze held it), whatever the tiers ask now.
      if (request.history.at(-2)?.state === 'approved') {
        return `Your request ${title} was approved, but held by a freeze of sends until it expired. Expiry is final: nothing was sent. File it again if it is still needed.`;
      }
      return `Your request ${title} expired before it had enough approvals. Expiry is final: nothing was sent, and it can no longer be approved or extended. File it again if it is still needed.`;
    case HELD_ACTION:
      return `Your request ${title} is approved, but sends are frozen: it goes out once the freeze is lifted, unless it expires first.`;
    case 'reminder':
      return requesterReminderNotice(request);
    case 'outcome-unknown':
    case 'interrupted':
      return `Your request ${title}: the outcome is unknown for now; it is being looked up, never resent.`;
    case CONFLICT_ACTION:
    case CONFLICT_RESOLVED:
    case LOOKED_UP_BEFORE_SENDING:
      return `Your request ${title}: ${escapeMrkdwn(step?.note ?? '')}.`;
    default:
      return undefined;
  }
}

/** The delegator hears when their delegation takes effect, ends early, or does not come about. */
function delegationNotice(request: ApprovalRequest, by: string): string | undefined {
  if (request.kind !== 'delegation') return undefined;
  const step = request.history.at(-1);
  const p = request.payload;
  const cap = p.max ? `, for requests up to ${escapeMrkdwn(naira(p.max))}` : '';
  switch (step?.action) {
    case 'completed':
      return `Your delegation is in effect: ${mentionUser(p.delegate)} may approve in your place until ${escapeMrkdwn(lagosTime(p.until))}${cap}. End it any time with \`/cngn delegate revoke\` ${mentionUser(p.delegate)}.`;
    case REVOKED_ACTION:
      // Without an actor the bot ended it: its note says who may no longer act here.
      return step.actor
        ? `Your delegation to ${mentionUser(p.delegate)} was revoked by ${by}; it is no longer in effect.`
        : `Your delegation to ${mentionUser(p.delegate)} was ${escapeMrkdwn(step.note ?? 'ended by the bot')}; it is no longer in effect.`;
    case 'rejected':
      return `Your delegation to ${mentionUser(p.delegate)} was rejected by ${by}: ${escapeMrkdwn(request.reason ?? 'no reason given')}.`;
    case 'expired':
      return `Your delegation to ${mentionUser(p.delegate)} was not approved in time; nothing is in effect.`;
    case WITHDRAWN_ACTION:
      // The bot cancelled it while it waited: its note says who may no longer act here.
      return `Your delegation to ${mentionUser(p.delegate)} was ${escapeMrkdwn(step.note ?? 'cancelled by the bot')}; nothing is in effect.`;
    case 'failed':
      return `Your delegation to ${mentionUser(p.delegate)} could not be written: ${escapeMrkdwn(request.outcome?.reason ?? 'see the approvals channel')}.`;
    default:
      return undefined;
  }
}
