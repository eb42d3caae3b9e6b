// `/cngn policy`: who may approve what, as configured, in one private message. Pure: the settled
// policy and the names Slack resolved in, Block Kit out. Names come from Slack profiles: escaped.
import type { KnownBlock } from '@slack/types';
import {
  type ApprovalTier,
  amountBands,
  type Delegation,
  describeSigningRule,
  requiredApprovals,
  type SigningRule,
} from '../../../access/index.js';
import type { Freeze } from '../../../approvals/index.js';
import {
  fullDuration,
  type LimitUse,
  type ReminderPoint,
  settingWords,
  shortDuration,
} from '../../../approvals/index.js';
import type { CngnEnvironment } from '../../../cngn/api.js';
import { environmentMarker, naira } from '../../../format/display.js';
import { escapeMrkdwn, mentionChannel } from '../../../format/mrkdwn.js';
import type { SlackMessage } from '../../types.js';
import { delegationLines } from '../../ui/delegations.js';
import { freezeBanner } from '../../ui/freeze.js';
import { section, sections } from '../../ui/messages.js';
import { limitsPolicyText } from './limits.js';
import { type NamedPerson, people, type RolesView, rolesText } from './roles.js';

export type { NamedPerson } from './roles.js';

export interface PolicyView {
  tiers: readonly ApprovalTier[];
  approvers: NamedPerson[];
  group?: { id: string; members?: NamedPerson[]; problem?: string } | undefined;
  ttlMs: number;
  reminders: readonly ReminderPoint[];
  /** CNGN_APPROVAL_NOTIFY, where that setting exists. */
  notify?: string | undefined;
  approvalsChannel: string;
  alertsChannel?: string | undefined;
  environment: CngnEnvironment;
  /** Delegations in effect (absent: none), and the time their windows are read against. */
  delegations?: readonly Delegation[];
  /** The freeze of sends in place (absent: none). */
  freeze?: Freeze | undefined;
  /** The limits over time and their use now (absent: not wired). */
  limits?: LimitUse | undefined;
  /** Readers, requesters, auditors and the kinds with their own approver pool (absent: not wired). */
  roles?: RolesView | undefined;
  /** CNGN_SIGNED_APPROVALS: which approvals need the approver's passkey (absent: not wired). */
  signing?: SigningRule | undefined;
  now?: Date;
}

const plural = (n: number) => `${n} approval${n === 1 ? '' : 's'}`;

/**
 * `₦0.00 up to below ₦1,000,000.00: 1 approval`, one line per band of amount (access/tiers.ts
 * `amountBands`: a band below a lowest tier above ₦0, tiers asking alike joined), then the kinds that
 * carry no amount.
 */
function tierLines(configured: readonly ApprovalTier[]): string[] {
  const bands = amountBands(configured);
  const lines = bands.map((band, i) => {
    const next = bands[i + 1];
    const range = next
      ? `${naira(band.min.toString())} up to below ${naira(next.min.toString())}`
      : `${naira(band.min.toString())} and above`;
    return `• ${escapeMrkdwn(range)}: ${plural(band.approvals)}`;
  });
  lines.push(
    `• Whitelist additions (no amount): ${plural(requiredApprovals(configured, undefined, 'whitelist'))}`,
  );
  lines.push(
    `• Settlement account changes: ${plural(requiredApprovals(configured, undefined, 'settlement'))} (the top tier)`,
  );
  return lines;
}

/** Where Approve and Reject are, by CNGN_APPROVAL_NOTIFY (App Home's waiting list has them in every mode). */
const BUTTONS = new Map([
  ['dm', 'in the DM and in App Home; the approvals channel shows the request without them'],
  ['channel', 'in the approvals channel and in App Home; no DM is sent when a request is filed'],
  ['both', 'in the DM, in the approvals channel and in App Home'],
]);

/** `by DM when a request is filed; Approve and Reject are …`; a value the bot does not know, as given. */
function toldLine(notify: string): string {
  const buttons = BUTTONS.get(notify);
  if (!buttons) return escapeMrkdwn(notify);
  return `${settingWords('approvers are told', notify)} when a request is filed; Approve and Reject are ${buttons}`;
}

function reminderLine(view: PolicyView): string {
  if (view.reminders.length === 0) return 'off';
  const at = view.reminders.map((p) => `${escapeMrkdwn(p.label)} (${shortDuration(p.share * view.ttlMs)})`);
  return `${at.join(', ')} of the lifetime, to the approvers who have not acted (thread and DM); the requester is told at the last`;
}

export function policyMessage(view: PolicyView): SlackMessage {
  const group = view.group;
  const groupLine = group
    ? `Members of user group \`${escapeMrkdwn(group.id)}\`: ${
        group.members
          ? people(group.members)
          : `could not be read just now (${escapeMrkdwn(group.problem ?? 'unknown')})`
      }`
    : 'No approver user group is configured.';
  const text = `*Approval policy* · ${environmentMarker(view.environment)}`;
  const blocks: KnownBlock[] = [
    section(text),
    ...(view.freeze ? [freezeBanner(view.freeze)] : []),
    section(
      `*Approvals needed* (distinct approvers; never the requester; each person counts once)\n${tierLines(view.tiers).join('\n')}`,
    ),
    ...(view.limits ? [section(limitsPolicyText(view.limits))] : []),
    // Each list of people has its own line; a section holds as many lines as fit in 3000 characters.
    ...(view.roles ? sections(rolesText(view.roles).split('\n')) : []),
    ...sections([
      `*Approvers*${view.roles?.ownPools.length ? ' (of every kind without a pool of its own)' : ''}`,
      `Named: ${people(view.approvers)}`,
      groupLine,
    ]),
    section(
      [
        `*Active delegations*: ${
          view.delegations?.length
            ? `${view.delegations.length} (the delegate approves in the approver's place, within the window and the cap; never passed on; each person counts once)\n${delegationLines(view.delegations, view.now ?? new Date())}`
            : 'none'
        }`,
        `*Freeze of sends*: ${view.freeze ? 'frozen (above); another approver lifts it by approving `/cngn unfreeze`' : 'none; any approver stops every send at once with `/cngn freeze &lt;reason&gt;`'}`,
        `*Request lifetime*: ${fullDuration(view.ttlMs)}; the requester may extend a pending request once, by at most that. Expiry is final.`,
        `*Reminders*: ${reminderLine(view)}. Nothing is ever approved by itself.`,
        ...(view.signing ? [`*Passkeys*: ${escapeMrkdwn(describeSigningRule(view.signing))}`] : []),
        ...(view.notify ? [`*Approvers are told*: ${toldLine(view.notify)}`] : []),
        `*Approvals channel*: ${mentionChannel(view.approvalsChannel)}`,
        `*Alerts channel*: ${view.alertsChannel ? mentionChannel(view.alertsChannel) : 'not set'}`,
        `*Environment*: ${environmentMarker(view.environment)}`,
      ].join('\n'),
    ),
  ];
  return { text: `Approval policy · ${view.environment.toUpperCase()}`, blocks };
}
