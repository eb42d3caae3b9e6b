// The freeze of sends in words: the banner every request message, DM, App Home and `/cngn policy`
// carries while sends are frozen, and what the approvals channel is told when they are frozen or
// resume. Pure: the freeze in, Block Kit out. The reason came from a person: escaped.
import type { KnownBlock } from '@slack/types';
import {
  type ApprovalRequest,
  chainUnreadable,
  type Freeze,
  type UnfreezePayload,
} from '../../approvals/index.js';
import { lagosTime } from '../../format/display.js';
import { clipMrkdwn, escapeMrkdwn, mentionUser } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';
import { requestTitle } from './words.js';

/** Held because the chain cannot be read back to its latest freeze: no person is named as having frozen. */
const UNREADABLE_HOLD = 'Sends are held: the signed audit chain does not verify back to its latest freeze';

/** `Frozen by @Bola: reason` (mrkdwn); for a freeze held because the chain cannot be read, no person. */
export function frozenBy(freeze: Pick<Freeze, 'by' | 'reason'>): string {
  if (chainUnreadable(freeze)) return UNREADABLE_HOLD;
  return `Frozen by ${mentionUser(freeze.by)}: ${escapeMrkdwn(freeze.reason)}`;
}

/** The one sentence that says what a freeze means, after who froze and why. */
export const FROZEN_MEANING =
  'nothing is sent to the service until another approver approves `/cngn unfreeze`; filing and approving go on.';

/**
 * A hold because the chain cannot be read back: which break it is for, by the chain's time beside the
 * break that names it (the entry the break was found at, or where no entry is left the bot's last check
 * of the chain). Not when sends began to be held (mrkdwn).
 */
const heldFor = (at: string): string => `held for the break in the audit chain next to ${at}`;

/** `since <when the freeze began>`, or for a hold because the chain cannot be read back, heldFor (mrkdwn). */
export function since(freeze: Pick<Freeze, 'by' | 'at'>): string {
  const at = escapeMrkdwn(lagosTime(freeze.at));
  return chainUnreadable(freeze) ? heldFor(at) : `since ${at}`;
}

/** Who may approve an unfreeze of it, beside `whom` (its requester, in their words; mrkdwn). */
export function mayLift(frozenBy: string, whom: string): string {
  return `${chainUnreadable({ by: frozenBy }) ? 'any' : 'an'} approver ${othersThan(frozenBy, whom)}`;
}

/**
 * Whom the approvers of an unfreeze must not be, after "approvers": `other than <whom>`, and the one
 * who froze unless the hold is for an unreadable chain (no one froze it; mrkdwn).
 */
export function othersThan(frozenBy: string, whom: string): string {
  return chainUnreadable({ by: frozenBy })
    ? `other than ${whom}`
    : `other than ${mentionUser(frozenBy)} and ${whom}`;
}

const capitalised = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** The banner: who froze the sends, why, since when, and what that means. */
export function freezeBanner(freeze: Freeze): KnownBlock {
  return {
    type: 'section',
    text: {
      type: 'mrkdwn',
      text: clipMrkdwn(`:no_entry: *${frozenBy(freeze)}*\n${capitalised(since(freeze))}: ${FROZEN_MEANING}`),
    },
  };
}

/** Posted in the approvals channel when sends are frozen. */
export function frozenAnnouncement(freeze: Freeze, underway: readonly string[]): SlackMessage {
  const late = underway.length
    ? `\nAlready under way when the freeze came, so not stopped: ${underway.map((id) => `\`${escapeMrkdwn(id)}\``).join(', ')}.`
    : '';
  const text = `:no_entry: *Sends are frozen.* ${frozenBy(freeze)}`;
  return {
    text: `Sends are frozen. ${frozenBy(freeze)}`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: clipMrkdwn(
            `${text}\nFrom now on ${FROZEN_MEANING} Approved requests wait, and go out once the freeze is lifted unless they expire first.${late}`,
          ),
        },
      },
    ],
  };
}

/** Posted in the approvals channel when an approved unfreeze lifted the freeze. */
export function liftedAnnouncement(freeze: Freeze, by: string, requestId: string): SlackMessage {
  const text = `:arrow_forward: *Sends resume.* ${mentionUser(by)} approved \`${escapeMrkdwn(requestId)}\`, which lifted the freeze (${frozenBy(freeze)}).`;
  return {
    text: `Sends resume: ${escapeMrkdwn(requestId)} lifted the freeze.`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: clipMrkdwn(
            `${text}\nRequests approved meanwhile go out now, each once, unless they expired.`,
          ),
        },
      },
    ],
  };
}

/**
 * Posted in the approvals channel when the store's freeze record says sends are not frozen but the
 * signed audit chain holds them frozen: someone changed the store outside the bot.
 */
export function chainHeldAlert(freeze: Freeze): SlackMessage {
  if (chainUnreadable(freeze)) return unreadableAlert(freeze);
  const text = `:rotating_light: *The freeze record was changed outside the bot.* The store says sends are not frozen, but the signed audit chain holds them frozen (${frozenBy(freeze)}). Sends stay frozen.`;
  return {
    text: 'The freeze record was changed outside the bot; sends stay frozen.',
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: clipMrkdwn(
            `${text}\nA person must find out who wrote to the store. To resume sends, file \`/cngn unfreeze\` for another approver to approve.`,
          ),
        },
      },
    ],
  };
}

/** An unfreeze request's figures, label and mrkdwn value: the freeze it lifts and who may approve it. */
export function unfreezeFields(payload: UnfreezePayload): Array<[label: string, value: string]> {
  return [
    ['Lifts', frozenBy({ by: payload.frozenBy, reason: payload.reason })],
    chainUnreadable({ by: payload.frozenBy })
      ? ['Held', heldFor(escapeMrkdwn(lagosTime(payload.frozenAt)))]
      : ['Frozen since', escapeMrkdwn(lagosTime(payload.frozenAt))],
    ['Who may approve', mayLift(payload.frozenBy, 'the requester')],
  ];
}

/** An unfreeze is written to the bot's own store, never sent to the service: its steps say so. */
export const UNFREEZE_STEP_WORDS: Record<string, string> = {
  executing: "Lifting the freeze (written to the bot's own store; nothing goes to the service)",
  completed: 'The freeze is lifted: sends resume',
  'outcome-unknown':
    "Not known whether the freeze was lifted: the bot's store is checked; it is never written twice",
  interrupted:
    "The bot restarted while lifting the freeze: the bot's store is checked for it; it is never written twice",
};

/**
 * What the one who asked to lift the freeze hears, or undefined: `by` names who took the newest
 * step, `approvedBy` who gave the last approval (mrkdwn).
 */
export function unfreezeNotice(request: ApprovalRequest, by: string, approvedBy: string): string | undefined {
  const step = request.history.at(-1);
  const title = escapeMrkdwn(requestTitle(request));
  switch (step?.action) {
    case 'completed':
      return `${title} was approved by ${approvedBy}: the freeze is lifted, and sends resume.`;
    case 'rejected':
      return `${title} was rejected by ${by}: ${escapeMrkdwn(request.reason ?? 'no reason given')}. Sends stay frozen.`;
    case 'expired':
      return `${title} expired before another approver approved it. Sends stay frozen.`;
    case 'failed':
      return `${title} failed: ${escapeMrkdwn(request.outcome?.reason ?? 'see the approvals channel')}. Sends stay frozen.`;
    default:
      return undefined;
  }
}

/** Posted when sends are held because the signed audit chain does not verify back to its latest freeze. */
function unreadableAlert(freeze: Freeze): SlackMessage {
  const text = `:rotating_light: *${UNREADABLE_HOLD}.* ${capitalised(since(freeze))}; whether a freeze was in place before the break cannot be checked.`;
  return {
    text: `${UNREADABLE_HOLD}; an approver may lift it with /cngn unfreeze.`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: clipMrkdwn(
            `${text}\nA person must find out why the chain does not verify. Any approver may lift the hold: file \`/cngn unfreeze\` for another approver to approve.`,
          ),
        },
      },
    ],
  };
}
