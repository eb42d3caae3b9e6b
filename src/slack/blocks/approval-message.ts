// The approval request as approvers see it in the approvals channel, updated in place at each step.
// Pure: request and the current time in, Block Kit out.
import type { KnownBlock } from '@slack/types';
import type { ApprovalRequest } from '../../approvals/types.js';
import { lagosTime, naira, relative } from '../../format/display.js';
import { environmentLabel, KIND_TITLE, requestTitle, STATE_WORDS } from './approval-format.js';

export const APPROVE_ACTION = 'approval.approve';
export const REJECT_ACTION = 'approval.reject';
export const CANCEL_ACTION = 'approval.cancel';
export const APPROVAL_ACTIONS_BLOCK = 'approval.actions';

export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

const field = (label: string, value: string) => ({ type: 'mrkdwn' as const, text: `*${label}*\n${value}` });

/** Where the money or the routing goes, in the words an approver checks. */
export function destinationFields(request: ApprovalRequest): Array<{ type: 'mrkdwn'; text: string }> {
  const d = request.display;
  switch (request.kind) {
    case 'withdraw':
      return [
        field('To address', `\`${request.payload.address}\``),
        field('Network', d.networkName ?? request.payload.networkId),
        field('Save address', request.payload.shouldSaveAddress ? 'yes (whitelist it)' : 'no'),
      ];
    case 'redeem':
      return [
        field(
          'To bank account',
          `${d.bankName ?? request.payload.bankCode} · ${request.payload.accountNumber}`,
        ),
        field('Account name (resolved)', d.accountName ?? '—'),
      ];
    case 'bridge': {
      const q = d.quote;
      const out = [
        field('Route', `${d.originNetworkName ?? 'origin'} → ${d.destinationNetworkName ?? 'destination'}`),
        field('Destination address', `\`${request.payload.destinationAddress}\``),
      ];
      if (request.payload.senderAddress)
        out.push(field('Sender address', `\`${request.payload.senderAddress}\``));
      if (q) {
        out.push(field('Receivable', naira(q.amountReceivable)));
        out.push(field('Fees', `network ${naira(q.networkFee)} · bridge ${naira(q.bridgeFee)}`));
      }
      return out;
    }
    case 'whitelist':
      return [
        field('Address', `\`${request.payload.address}\``),
        field('Network', d.networkName ?? request.payload.networkId),
      ];
    case 'settlement':
      return [
        field('New settlement account', `${request.payload.bankName} · ${request.payload.bankAccountNumber}`),
        field('Account name (resolved)', request.payload.bankAccountName),
      ];
  }
}

function approvalsLine(request: ApprovalRequest): string {
  const who = request.approvals.map((a) => `<@${a.user}>`).join(', ');
  return `${request.approvals.length} of ${request.requiredApprovals}${who ? ` (${who})` : ''}`;
}

function outcomeLines(request: ApprovalRequest): string[] {
  const o = request.outcome;
  if (!o) return [];
  const lines: string[] = [];
  if (o.reference) lines.push(`Reference: \`${o.reference}\``);
  if (o.receivableAddress)
    lines.push(`Send the quoted amount to \`${o.receivableAddress}\` on the origin network`);
  if (o.explorerLink) lines.push(`<${o.explorerLink}|View on the explorer>`);
  if (o.reason && request.state === 'failed') lines.push(`Reason: ${o.reason}`);
  return lines;
}

/** Approve and Reject carry `id:round`: a click binds to the figures shown in that round. */
export function approvalButtonValue(request: ApprovalRequest): string {
  return `${request.id}:${request.round}`;
}

/** The request and round a button was rendered for; a bare id is a button from before rounds were bound: round 0. */
export function readButtonValue(value: string | undefined): { id: string; round: number } {
  const match = /^(.+):(\d+)$/.exec(value ?? '');
  return match ? { id: match[1] ?? '', round: Number(match[2]) } : { id: value ?? '', round: 0 };
}

/** Amount, destination, people, expiry: the figures an approver checks. */
function figuresSection(request: ApprovalRequest, now: Date): KnownBlock {
  return {
    type: 'section',
    fields: [
      ...(request.amount ? [field('Amount', naira(request.amount))] : []),
      ...destinationFields(request),
      field('Requested by', `<@${request.requester}>`),
      field('Approvals', approvalsLine(request)),
      field(
        request.state === 'pending' ? 'Expires' : 'Filed',
        request.state === 'pending'
          ? `${lagosTime(request.expiresAt)} (${relative(request.expiresAt, now)})`
          : lagosTime(request.createdAt),
      ),
      field('Environment', environmentLabel(request.environment)),
    ].slice(0, 10),
  };
}

/** Said privately to someone who clicked a message showing an earlier round of the request. */
export function staleRoundNotice(request: ApprovalRequest, now: Date): SlackMessage {
  const why = request.reason ? ` (${request.reason})` : '';
  const text = `${requestTitle(request)} changed since the message you clicked was shown${why}. Your click changed nothing. Here are the new figures; approve or reject from the updated request message if they are right.`;
  return {
    text,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }, figuresSection(request, now)],
  };
}

export function approvalMessage(request: ApprovalRequest, now: Date): SlackMessage {
  const blocks: KnownBlock[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: `${KIND_TITLE[request.kind]} · ${environmentLabel(request.environment)}`,
      },
    },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*${STATE_WORDS[request.state]}*  ·  \`${request.id}\`` },
    },
    figuresSection(request, now),
  ];
  if (request.reason && request.state === 'pending') {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `:warning: Sent back to the approvers: ${request.reason}` }],
    });
  }
  if (request.reason && request.state === 'rejected') {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `Reason: ${request.reason}` }] });
  }
  const outcome = outcomeLines(request);
  if (outcome.length > 0) {
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: outcome.join('\n') }] });
  }
  if (request.state === 'pending') {
    blocks.push({
      type: 'actions',
      block_id: APPROVAL_ACTIONS_BLOCK,
      elements: [
        {
          type: 'button',
          action_id: APPROVE_ACTION,
          style: 'primary',
          text: { type: 'plain_text', text: 'Approve' },
          value: approvalButtonValue(request),
        },
        {
          type: 'button',
          action_id: REJECT_ACTION,
          style: 'danger',
          text: { type: 'plain_text', text: 'Reject' },
          value: approvalButtonValue(request),
        },
        {
          type: 'button',
          action_id: CANCEL_ACTION,
          text: { type: 'plain_text', text: 'Cancel (requester)' },
          value: request.id,
        },
      ],
    });
  }
  return {
    text: `${requestTitle(request)}: ${STATE_WORDS[request.state].replace(/^:[a-z_]+: /, '')}`,
    blocks,
  };
}

/** The thread reply for the request's newest step. */
export function stepText(request: ApprovalRequest): string {
  const step = request.history.at(-1);
  if (!step) return requestTitle(request);
  const by = step.actor ? ` by <@${step.actor}>` : '';
  const note = step.note ? ` — ${step.note}` : '';
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
    failed: 'Failed',
    'outcome-unknown':
      'No clear answer from the service: marked outcome unknown; it will be looked up, never resent',
    interrupted: 'The bot restarted during the call: outcome unknown; it will be looked up, never resent',
    released: 'The bot restarted before sending it: nothing was sent, so it is sent now',
    reconciled: 'Found in the transaction list',
  };
  return `${words[step.action] ?? step.action}${by}${note}`;
}

/** What the requester is told privately, or undefined when this step is not theirs to hear. */
export function requesterNotice(request: ApprovalRequest): string | undefined {
  const step = request.history.at(-1);
  const title = requestTitle(request);
  switch (step?.action) {
    case 'approved':
      return `Your request ${title} was approved by <@${step.actor}>.`;
    case 'rejected':
      return `Your request ${title} was rejected by <@${step.actor}>: ${request.reason ?? 'no reason given'}.`;
    case 'sent-back':
      return `Your request ${title} went back to the approvers: ${request.reason ?? ''}.`;
    case 'sent':
      return `Your request ${title} was sent to the service (reference ${request.outcome?.reference ?? '—'}).`;
    case 'completed':
      return `Your request ${title} has settled: completed.`;
    case 'failed':
      return `Your request ${title} failed: ${request.outcome?.reason ?? 'see the approvals channel'}.`;
    case 'expired':
      return `Your request ${title} expired before it had enough approvals.`;
    case 'outcome-unknown':
    case 'interrupted':
      return `Your request ${title}: the outcome is unknown for now; it is being looked up, never resent.`;
    default:
      return undefined;
  }
}
