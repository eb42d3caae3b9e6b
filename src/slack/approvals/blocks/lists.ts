// `/cngn pending`, `/cngn audit` and the private explanations given to people who may not act.
import type { ApprovalRequest, LimitFigures, Refusal } from '../../../approvals/index.js';
import { lagosTime, relative } from '../../../format/display.js';
import { escapeMrkdwn, mentionUser } from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { section } from '../../ui/messages.js';
import { IN_THE_BOT, requestTitle, stateWords } from '../../ui/words.js';
import { type ApprovalsShown, FILED_COUNT } from './approvals-shown.js';
import { FIRST_PAYMENT, LOOK_ALIKE_MARK } from './checks.js';
import { dailyLimitText } from './limits.js';
import { isPasskeyRefusal, passkeyRefusalText } from './passkey-refusals.js';
import { purposeText } from './purpose.js';

const MAX_ROWS = 40;

/** Approved and on its way: a late click meets a request someone else already decided. */
const IN_HAND: ReadonlySet<ApprovalRequest['state']> = new Set([
  'approved',
  'executing',
  'sent',
  'outcome-unknown',
]);

/** `shown`: how many approvals each request needs, from the engine. */
export function pendingList(
  requests: ApprovalRequest[],
  now: Date,
  environment: string,
  shown: ApprovalsShown = FILED_COUNT,
): SlackMessage {
  if (requests.length === 0) {
    return {
      text: `No open approval requests. · ${escapeMrkdwn(environment)}`,
      blocks: [section(`No open approval requests. · ${escapeMrkdwn(environment)}`)],
    };
  }
  const rows = requests.slice(0, MAX_ROWS).map((r) => {
    const when =
      r.state === 'pending' ? `expires ${relative(r.expiresAt, now)}` : `filed ${relative(r.createdAt, now)}`;
    const purpose = purposeText(r);
    const why = purpose ? ` · for: ${purpose}` : '';
    return `• *${escapeMrkdwn(requestTitle(r))}*${why}${checkMarks(r)} — ${stateWords(r)} · ${r.approvals.length} of ${shown(r)} approvals · by ${mentionUser(r.requester)} · ${when}`;
  });
  const more = requests.length > MAX_ROWS ? [`…and ${requests.length - MAX_ROWS} more`] : [];
  const text = `*Open approval requests (${requests.length})* · ${escapeMrkdwn(environment)}`;
  return { text, blocks: [section(text), section([...rows, ...more].join('\n'))] };
}

/** What an approver must look at twice, said on the request's line: a look-alike, a first payment. */
function checkMarks(request: ApprovalRequest): string {
  const marks = [
    request.preflight?.lookAlike ? `:warning: *${LOOK_ALIKE_MARK}*` : '',
    request.preflight?.firstPayment ? `:new: ${FIRST_PAYMENT.toLowerCase()}` : '',
  ].filter(Boolean);
  return marks.length > 0 ? ` · ${marks.join(' · ')}` : '';
}

/** A reject or cancel that came after the request was claimed for its one call (or put into effect). */
function tooLateText(title: string, request: ApprovalRequest | undefined): string {
  const taken = request && IN_THE_BOT.has(request.kind) ? 'being put into effect' : 'claimed for sending';
  return `${title} was already ${taken} (${request ? stateWords(request) : 'in hand'}): too late to reject or cancel it, so nothing changed.`;
}

/**
 * Why a click did nothing, said privately to the person who clicked. Made only of the bot's own words,
 * ids and amounts, so it reads the same as plain text and as mrkdwn. `limit`: a daily-limit refusal's figures;
 * `shown`: how many approvals the request needs, from the engine.
 */
export function refusalText(
  reason: Refusal,
  request?: ApprovalRequest,
  limit?: LimitFigures,
  shown: ApprovalsShown = FILED_COUNT,
): string {
  const title = request ? requestTitle(request) : 'This request';
  if (isPasskeyRefusal(reason)) return passkeyRefusalText(reason, title);
  switch (reason) {
    case 'requester':
      return requesterText(title, request);
    case 'not-approver':
      // A kind may have a pool of its own, so an approver of other kinds can be refused too.
      return request
        ? `You are not an approver for ${title}, so nothing changed. Ask one of its approvers (\`/cngn policy\` lists them).`
        : `You are not an approver for cNGN requests, so nothing changed. Ask a treasury approver.`;
    case 'already-approved':
      return `You already approved ${title}; it needs ${request ? shown(request) : 'more'} distinct approvals.`;
    case 'not-requester':
      return `Only the requester can cancel ${title}.`;
    case 'expired':
      return `${title} expired before it was approved; nothing was sent. File it again if it is still needed.`;
    case 'not-pending':
      return notPendingText(title, request);
    case 'already-sending':
      return tooLateText(title, request);
    case 'delegate-after-approval':
      return `${title} is already approved: only an approver in their own right can stop it now, not a delegate, so nothing changed. Ask one of its approvers (\`/cngn policy\` lists them).`;
    case 'checking':
      return `A final approval of ${title} is being checked against the service right now; nothing changed.`;
    case 'recheck-failed':
      return `The figures of ${title} could not be checked again with the service, so it was not approved. Try again shortly.`;
    case 'not-unknown':
      return `${title} is ${request ? stateWords(request) : 'closed'}, not waiting for a person's check; only a request whose outcome is unknown can be resolved by hand. Nothing changed.`;
    case 'settled-by-the-bot':
      return `${title} took effect in the bot's own store or not at all, so the bot settles it itself from what its store holds, shortly; it cannot be resolved by hand. Nothing changed.`;
    case 'not-found':
      return 'That approval request no longer exists.';
    case 'delegate':
      return `You are the delegate named in ${title}, so you cannot approve it: another approver must.`;
    case 'window-ended': {
      const until = request?.kind === 'delegation' ? ` (${lagosTime(request.payload.until)})` : '';
      return `The window of ${title} has already ended${until}: approved now, it would never be in effect, so it was not approved and nothing changed. Its delegator can file a new one, or cancel this one.`;
    }
    case 'delegation-ended':
      return `The delegation that let you approve in an approver's place has ended (or was revoked), so nothing changed.`;
    case 'over-cap':
      return `${title} is above the cap of your delegation, so you cannot approve it in the approver's place; nothing changed.`;
    case 'not-covered':
      return `${title} has no amount, and your delegation has a cap, so it does not cover it; nothing changed.`;
    case 'delegator-filed':
      return `The approver you stand in for filed ${title}, so nobody can approve it in their place; nothing changed.`;
    case 'insufficient-balance':
      return `The balance last read, less what approved requests already commit, does not cover ${title}, so it was not approved and nothing was sent. Open the review again to see the figures.`;
    case 'delegator-counted':
      return `The approver you stand in for already counts on ${title} (each person counts once); nothing changed.`;
    case 'froze':
      return `You froze the sends, so you cannot approve ${title}: another approver lifts the freeze. Nothing changed.`;
    case 'passkey-owner-gone': {
      const owner = request?.kind === 'passkey' ? mentionUser(request.payload.user) : 'The person it is for';
      return `${owner} is no longer an approver or a delegate, so their passkey registration was not approved and nothing changed. Reject it, or it expires.`;
    }
    case 'over-daily-limit':
      return `${title} was not approved: ${limit ? dailyLimitText(limit) : 'it would pass the daily limit'}. It stays waiting for approval; nothing changed. Approve it again once there is room in the limit.`;
  }
}

/** The requester's own click: only a request still waiting for approval can be cancelled by them. */
function requesterText(title: string, request?: ApprovalRequest): string {
  // One whose outcome is unknown is resolved by another approver.
  if (request?.state === 'outcome-unknown') {
    return `You filed ${title}, so you cannot record its outcome: another approver must check it with the service and resolve it.`;
  }
  const cancellable = !request || request.state === 'pending' || request.state === 'approved';
  return `You filed ${title}, so you cannot approve or reject it: another approver must.${cancellable ? ' (You can cancel it.)' : ''}`;
}

/** A click on a request no longer waiting: already in hand, or closed. */
function notPendingText(title: string, request?: ApprovalRequest): string {
  if (request && IN_HAND.has(request.state))
    return `${title} was already approved and is being handled (${stateWords(request)}); your click changed nothing.`;
  return `${title} is no longer waiting for approval (${request ? stateWords(request) : 'closed'}); nothing changed.`;
}
