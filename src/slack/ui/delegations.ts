// Delegations in words: the `/cngn delegate` list and the line `/cngn policy` shows. Pure: delegations
// and the time in, text out. People are shown as mentions (ids only), amounts and times by format/.
import type { Delegation } from '../../access/index.js';
import { REVOKED_ACTION, type RequestOf } from '../../approvals/index.js';
import { lagosTime, naira, relative } from '../../format/display.js';
import { clipMrkdwn, escapeMrkdwn, mentionUser } from '../../format/mrkdwn.js';
import type { SlackMessage } from '../types.js';

/** At most this many delegations are listed; the rest are counted. */
const MAX_LISTED = 30;

/** `<@Chidi> → <@Bola> until Mon 30 Nov 2026, 00:00 WAT (in 6 days), up to ₦500,000.00` */
function delegationLine(delegation: Delegation, now: Date): string {
  const cap = delegation.max ? `up to ${escapeMrkdwn(naira(delegation.max))} per request` : 'no cap';
  const until = `${escapeMrkdwn(lagosTime(delegation.until))} (${escapeMrkdwn(relative(delegation.until, now))})`;
  return `${mentionUser(delegation.delegator)} → ${mentionUser(delegation.delegate)} until ${until}, ${cap}`;
}

/** The active delegations as lines, or `none`. */
export function delegationLines(delegations: readonly Delegation[], now: Date): string {
  if (delegations.length === 0) return 'none';
  const shown = delegations.slice(0, MAX_LISTED).map((d) => `• ${delegationLine(d, now)}`);
  const more = delegations.length > MAX_LISTED ? [`…and ${delegations.length - MAX_LISTED} more`] : [];
  return [...shown, ...more].join('\n');
}

/** A delegation request still waiting for another approver. */
function waitingLine(request: RequestOf<'delegation'>): string {
  const p = request.payload;
  const cap = p.max ? `up to ${escapeMrkdwn(naira(p.max))} per request` : 'no cap';
  return `• \`${escapeMrkdwn(request.id)}\` ${mentionUser(p.delegator)} → ${mentionUser(p.delegate)} until ${escapeMrkdwn(lagosTime(p.until))}, ${cap}`;
}

export function delegationList(
  delegations: readonly Delegation[],
  now: Date,
  environment: string,
  everyone: boolean,
  waiting: readonly RequestOf<'delegation'>[] = [],
): SlackMessage {
  const heading = everyone
    ? `*Delegations in effect* (all, as you are an approver) · ${escapeMrkdwn(environment)}`
    : `*Delegations in effect to you and from you* · ${escapeMrkdwn(environment)}`;
  const usage =
    'Delegate: `/cngn delegate @person until &lt;2026-12-24|7d&gt; [max &lt;amount&gt;]` (another approver approves it). End one at once: `/cngn delegate revoke @person`.';
  const pending = waiting.length
    ? `\n*Waiting for another approver's approval*\n${waiting.slice(0, MAX_LISTED).map(waitingLine).join('\n')}`
    : '';
  const text = clipMrkdwn(`${heading}\n${delegationLines(delegations, now)}${pending}`);
  return {
    text: heading,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: usage }] },
    ],
  };
}

/** What the delegate hears when a delegation to them takes effect or is revoked; undefined otherwise. */
export function delegateNotice(request: RequestOf<'delegation'>): string | undefined {
  const step = request.history.at(-1);
  const p = request.payload;
  const cap = p.max ? `, for requests up to ${escapeMrkdwn(naira(p.max))}` : '';
  if (step?.action === 'completed') {
    return `${mentionUser(p.delegator)} delegated their approvals to you: you may approve in their place until ${escapeMrkdwn(lagosTime(p.until))}${cap}, never a request you or they filed. What waits for you comes by DM and in App Home. Give it up any time with \`/cngn delegate revoke\` ${mentionUser(p.delegator)}.`;
  }
  // Ended by the bot (no actor): the delegate may no longer act here, and is told nothing more.
  if (step?.action === REVOKED_ACTION && step.actor) {
    return `The delegation from ${mentionUser(p.delegator)} to you was revoked by ${mentionUser(step.actor ?? '')}; you no longer approve in their place.`;
  }
  return undefined;
}
