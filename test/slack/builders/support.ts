// What Slack would parse in a built message: the top-level `text` (the notification, parsed as mrkdwn)
// and every mrkdwn text object in its blocks; plain_text objects apart (Slack shows them as typed).
import type { ApprovalRequest } from '../../../src/approvals/types.js';

export interface Parsed {
  mrkdwn: string[];
  plain: string[];
}

/** A message (`{text, blocks}`), a view, a bare mrkdwn string (DMs, thread replies, ephemerals). */
export function slackTexts(built: unknown): Parsed {
  const out: Parsed = { mrkdwn: [], plain: [] };
  if (typeof built === 'string') {
    out.mrkdwn.push(built);
    return out;
  }
  const top = built as { text?: unknown };
  if (typeof top.text === 'string') out.mrkdwn.push(top.text);
  const walk = (value: unknown) => {
    if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      if (o.type === 'mrkdwn' && typeof o.text === 'string') out.mrkdwn.push(o.text);
      if (o.type === 'plain_text' && typeof o.text === 'string') out.plain.push(o.text);
      for (const [key, v] of Object.entries(o)) if (key !== 'text' || typeof v !== 'string') walk(v);
    }
  };
  walk((built as { blocks?: unknown }).blocks ?? built);
  return out;
}

/** Slack user and channel ids the fixtures use: the bot's own mentions of them are meant to work. */
const USERS = ['UREQ', 'UAPPROVERA', 'UAPPROVERB'] as const;
const CHANNEL = 'CAPPROVALS';

const KNOWN_EXPLORER =
  /^https:\/\/(sepolia\.basescan\.org|basescan\.org|testnet\.bscscan\.com|bscscan\.com|amoy\.polygonscan\.com|polygonscan\.com|sepolia\.etherscan\.io|etherscan\.io|alfajores\.celoscan\.io|celoscan\.io|scan-testnet\.assetchain\.org|scan\.assetchain\.org)\//;

/**
 * The mrkdwn with the bot's own markup taken out: mentions of the fixtures' people and channel, links
 * to a known block explorer over https, and Slack's own permalinks. What is left must hold no `<` or `>` at all.
 */
/** A message's permalink as Slack gives it (App Home links to a request, `/cngn tx` to an alert). */
const SLACK_PERMALINK = /^https:\/\/[a-z0-9-]+\.slack\.com\/archives\/[A-Z0-9]+\/p\d+$/;

export function withoutOwnMarkup(text: string): string {
  return text
    .replace(/<@([A-Z0-9]+)>/g, (whole, id: string) =>
      (USERS as readonly string[]).includes(id) ? '' : whole,
    )
    .replace(/<#([A-Z0-9]+)>/g, (whole, id: string) => (id === CHANNEL ? '' : whole))
    .replace(/<([^<>|\s]+)\|([^<>]*)>/g, (whole, url: string) =>
      KNOWN_EXPLORER.test(url) || SLACK_PERMALINK.test(url) ? '' : whole,
    );
}

export const NOW = new Date('2026-11-23T08:00:00.000Z');

export const STATES: ApprovalRequest['state'][] = [
  'pending',
  'approved',
  'executing',
  'sent',
  'completed',
  'failed',
  'outcome-unknown',
  'rejected',
  'cancelled',
  'expired',
];

export const ACTIONS = [
  'filed',
  'approval-added',
  'approved',
  'sent-back',
  'rejected',
  'cancelled',
  'expired',
  'executing',
  'sent',
  'completed',
  'failed',
  'outcome-unknown',
  'interrupted',
  'reconciled',
  'execution-delayed',
  'ambiguous-match',
  'needs-manual-check',
  'bridge-callback',
  'held-frozen',
  'stopped-but-found',
];

/** One request of each kind, every text that came from outside set to `text`. */
export function requestsOf(text: string, explorerLink: string): ApprovalRequest[] {
  const base = {
    id: 'AR-0123456789',
    environment: 'live' as const,
    requester: 'UREQ',
    approvals: [{ user: 'UAPPROVERA', at: '2026-11-23T07:59:00.000Z' }],
    requiredApprovals: 2,
    createdAt: '2026-11-23T07:00:00.000Z',
    expiresAt: '2026-11-24T07:00:00.000Z',
    state: 'pending',
    round: 1,
    reason: text,
    outcome: {
      reference: text,
      transactionId: text,
      receivableAddress: text,
      status: text,
      reason: text,
      explorerLink,
      hash: text,
    },
    history: [
      { at: '2026-11-23T07:00:00.000Z', state: 'pending', action: 'filed', actor: 'UREQ', note: text },
    ],
  };
  const display = {
    networkName: text,
    originNetworkName: text,
    destinationNetworkName: text,
    bankName: text,
    bankCode: text,
    accountName: text,
    quote: { amountReceivable: text, networkFee: text, bridgeFee: text },
  };
  return [
    {
      ...base,
      kind: 'withdraw',
      amount: '1500.50',
      payload: { amount: '1500.50', address: text, networkId: text, shouldSaveAddress: true },
      display,
      purpose: text,
    },
    {
      ...base,
      kind: 'redeem',
      amount: '1250000.50',
      payload: { amount: '1250000.50', bankCode: text, accountNumber: text },
      display,
      purpose: text,
    },
    {
      ...base,
      kind: 'bridge',
      amount: '100000.00',
      payload: {
        originNetworkId: text,
        destinationNetworkId: text,
        destinationAddress: text,
        senderAddress: text,
      },
      display,
      purpose: text,
    },
    { ...base, kind: 'whitelist', payload: { networkId: text, address: text }, display },
    {
      ...base,
      kind: 'settlement',
      payload: { bankName: text, bankAccountName: text, bankAccountNumber: text },
      display,
    },
    {
      ...base,
      kind: 'unfreeze',
      payload: { frozenBy: 'UAPPROVERB', frozenAt: '2026-11-23T06:00:00.000Z', reason: text },
      display,
    },
    // Names missing from display: the builder falls back to the payload's ids and codes. No purpose:
    // filed before purposes were asked for.
    {
      ...base,
      kind: 'withdraw',
      amount: '1.00',
      payload: { amount: '1.00', address: text, networkId: text, shouldSaveAddress: false },
      display: {},
    },
    {
      ...base,
      kind: 'redeem',
      amount: '1.00',
      payload: { amount: '1.00', bankCode: text, accountNumber: text },
      display: {},
    },
  ] as ApprovalRequest[];
}

/** The request in `state` with its newest step `action` (by an approver, with a note). */
export function atStep(
  request: ApprovalRequest,
  state: ApprovalRequest['state'],
  action: string,
  note: string,
) {
  return {
    ...request,
    state,
    history: [
      ...request.history,
      { at: '2026-11-23T07:59:00.000Z', state, action, actor: 'UAPPROVERA', note },
    ],
  } as ApprovalRequest;
}
