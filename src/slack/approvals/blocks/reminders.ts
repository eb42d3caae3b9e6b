// Reminders, the requester's one Extend, and the final word on expiry, as approvers and requesters read
// them. Pure: the request (its newest step says what happened, and when) in, text or Block Kit out.
import type { ContextBlock, KnownBlock } from '@slack/types';
import type { ApprovalRequest } from '../../../approvals/index.js';
import { type ExtendResult, fullDuration, isLastReminder, shortDuration } from '../../../approvals/index.js';
import { lagosTime, relative } from '../../../format/display.js';
import { escapeMrkdwn, mentionChannel, mentionUser } from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { requestTitle } from '../../ui/words.js';
import { refusalText } from './lists.js';

export const EXTEND_ACTION = 'approval.extend' as const;
const POLICY_HINT = 'Who may approve: `/cngn policy`';

const people = (ids: readonly string[]) => ids.map(mentionUser).join(', ');
const approvals = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;
const expiry = (request: ApprovalRequest, at: Date) =>
  `${lagosTime(request.expiresAt)} (${relative(request.expiresAt, at)})`;
/** The newest step's time: what "in 12 hours" is measured from, so the text never reads a clock. */
const stepTime = (request: ApprovalRequest) => new Date(request.history.at(-1)?.at ?? request.createdAt);

/** The Extend button: shown on a pending request until its one Extend is used (only the requester's click works). */
export function extendButtons(request: ApprovalRequest) {
  if (request.state !== 'pending' || request.extended) return [];
  // A delegation expiring when its window ends has nothing left to extend.
  if (request.kind === 'delegation' && Date.parse(request.expiresAt) >= Date.parse(request.payload.until)) {
    return [];
  }
  return [
    {
      type: 'button' as const,
      action_id: EXTEND_ACTION,
      text: { type: 'plain_text' as const, text: 'Extend' },
      value: request.id,
    },
  ];
}

/** Context lines under the figures: the Extend, if used, and where the approval policy is shown. */
export function lifecycleContext(request: ApprovalRequest): KnownBlock[] {
  const lines: string[] = [];
  const ext = request.extended;
  if (ext) {
    lines.push(
      `:hourglass: Extended by ${mentionUser(ext.actor)} by ${shortDuration(ext.byMs)} to ${lagosTime(request.expiresAt)} (once only)`,
    );
  }
  if (request.state === 'pending') lines.push(POLICY_HINT);
  if (lines.length === 0) return [];
  const block: ContextBlock = { type: 'context', elements: [{ type: 'mrkdwn', text: lines.join('\n') }] };
  return [block];
}

/** Thread replies of the steps this file owns; undefined for every other step. */
export function lifecycleThreadReply(request: ApprovalRequest): string | undefined {
  const step = request.history.at(-1);
  const at = stepTime(request);
  if (step?.action === 'reminder' && step.reminder) {
    const r = step.reminder;
    const who =
      r.waiting.length > 0
        ? `from ${people(r.waiting)}`
        : 'and no other eligible approver is configured (see `/cngn policy`)';
    const last = isLastReminder(step) ? ' Last reminder: the requester has been told.' : '';
    return `:alarm_clock: Reminder ${r.point} of ${r.of} (${escapeMrkdwn(r.share)} of its lifetime): it still needs ${approvals(r.needed)} ${who}. It expires ${expiry(request, at)}; nothing is ever approved by itself.${last}`;
  }
  if (step?.action === 'extended' && request.extended) {
    return `:hourglass: Extended by ${mentionUser(request.extended.actor)} by ${shortDuration(request.extended.byMs)}: it now expires ${expiry(request, at)}. It cannot be extended again.`;
  }
  if (step?.action === 'expired') {
    return ':alarm_clock: Expired without enough approvals. Expiry is final: nothing was sent, and it can no longer be approved or extended. File it again if it is still needed.';
  }
  return undefined;
}

/** The requester's note at the last reminder; undefined for any other step. */
export function requesterReminderNotice(request: ApprovalRequest): string | undefined {
  const step = request.history.at(-1);
  if (step?.action !== 'reminder' || !isLastReminder(step) || !step.reminder) return undefined;
  const title = escapeMrkdwn(requestTitle(request));
  const extend = request.extended
    ? 'It was already extended once, so it cannot be extended again.'
    : `You may extend it once, with its Extend button or \`/cngn extend ${escapeMrkdwn(request.id)}\`.`;
  return `Your request ${title} still needs ${approvals(step.reminder.needed)} and expires ${expiry(request, stepTime(request))}. The approvers were reminded. ${extend}`;
}

/** The DM each waiting approver gets at a reminder. */
export function reminderDm(request: ApprovalRequest): SlackMessage {
  const step = request.history.at(-1);
  const title = escapeMrkdwn(requestTitle(request));
  const where = request.announcement ? ` in ${mentionChannel(request.announcement.channel)}` : '';
  const share = step?.reminder ? ` (${escapeMrkdwn(step.reminder.share)} of its lifetime)` : '';
  const text = `:alarm_clock: Reminder${share}: *${title}*, filed by ${mentionUser(request.requester)}, is waiting for your approval${where}. It expires ${expiry(request, stepTime(request))}. Approve or reject it from its message; nothing is approved by itself.`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Said privately to whoever asked to extend: what happened, or why nothing did. */
export function extendAnswer(result: ExtendResult): string {
  if (result.ok) {
    const r = result.request;
    return `${requestTitle(r)} now expires ${lagosTime(r.expiresAt)}. That was its one Extend.`;
  }
  const title = result.request ? requestTitle(result.request) : 'This request';
  switch (result.reason) {
    case 'not-requester':
      return `Only the requester can extend ${title}; nothing changed.`;
    case 'already-extended':
      return `${title} was already extended once (to ${lagosTime(result.request?.expiresAt ?? '')}); a request can be extended only once. Nothing changed.`;
    case 'too-long':
      return `${title} can be extended by at most its original lifetime (${fullDuration(result.maxMs ?? 0)}); nothing changed.`;
    case 'expired':
      return `${title} already expired, and expiry is final: nothing was sent. File it again if it is still needed.`;
    case 'window-end': {
      const until =
        result.request?.kind === 'delegation' ? ` (${lagosTime(result.request.payload.until)})` : '';
      return `${title} already expires when its window ends${until}: approved later, it would never be in effect, so it cannot be extended. Nothing changed.`;
    }
    default:
      return refusalText(result.reason, result.request);
  }
}
