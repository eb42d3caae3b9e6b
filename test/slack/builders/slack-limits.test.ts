// Long text from outside never makes Slack refuse a message or a view: every builder, fed a long value,
// a value heavy in `&` and `<` (escaped to several times its length) and one of hidden characters (each
// shown as a marker such as ⟨U+202E⟩) in every field that comes from a person, the service or a
// webhook, hands Slack what its Block Kit limits accept (src/workbench/slack-rules.ts); a value too long
// is cut and says so.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, AuditEntry } from '../../../src/approvals/types.js';
import { Money } from '../../../src/format/money.js';
import type { Movement, Report } from '../../../src/reports/types.js';
import { approvalDm } from '../../../src/slack/approvals/blocks/dm.js';
import { approvalMessage } from '../../../src/slack/approvals/blocks/message.js';
import { policyMessage } from '../../../src/slack/approvals/blocks/policy.js';
import { auditList } from '../../../src/slack/audit/list-blocks.js';
import { reportSummary } from '../../../src/slack/reports/blocks.js';
import { checkMessage, checkOptions, checkView } from '../../../src/workbench/slack-rules.js';
import { fallbackAlert, forEveryBuilder } from './every-builder.js';
import { NOW, requestsOf, slackTexts } from './support.js';

/** One long value per kind of text that grows when it is escaped or shown. */
const LONG = {
  'plain long': 'A'.repeat(500),
  '`&` and `<` heavy': '&<'.repeat(250),
  'hidden characters': '\u202e\u200b'.repeat(250),
} as const;

/** What Slack says of a built message, view or bank search's options, or undefined when it takes it. */
function refusal(built: unknown, name = ''): string | undefined {
  try {
    if (name === 'bank options') {
      checkOptions({ options: (built as { blocks: unknown }).blocks });
      return undefined;
    }
    const view = built as { type?: unknown };
    if (view.type === 'modal' || view.type === 'home') checkView(built, view.type);
    else if (typeof built === 'string') checkMessage({ text: built });
    else checkMessage(built as { text?: unknown; blocks?: unknown });
    return undefined;
  } catch (error) {
    return (error as Error).message.slice(0, 300);
  }
}

describe('long text from outside', () => {
  it.each(Object.entries(LONG))('is cut to fit in every builder: %s', async (_kind, value) => {
    const refused = new Set<string>();
    // Each output is checked as it is built, so they are not all held at once.
    const check = (name: string, one: unknown) => {
      // A requester is told nothing at this step: nothing is sent.
      if (one === '') return;
      const why = refusal(one, name);
      if (why) refused.add(`${name}: ${why}`);
    };
    forEveryBuilder(value, check);
    check('alert fallback', await fallbackAlert(value));
    expect([...refused].slice(0, 10)).toEqual([]);
  });

  it('shows a failed request with a long reason, cut and saying so, in the channel and the DM', () => {
    const [withdraw] = requestsOf('ADA', 'https://basescan.org/tx/0xabc');
    for (const reason of ['x'.repeat(2990), '<'.repeat(800)]) {
      const failed: ApprovalRequest = {
        ...(withdraw as ApprovalRequest),
        state: 'failed',
        outcome: { reason },
      };
      for (const message of [approvalMessage(failed, NOW), approvalDm(failed, NOW, 'UAPPROVERA')]) {
        expect(refusal(message)).toBeUndefined();
        const shown = slackTexts(message).mrkdwn.join('\n');
        expect(shown).toMatch(/Reason: (x+|(&lt;)+)…\(cut\)/);
      }
    }
  });

  it('lists the audit log when its first row alone is longer than a section', () => {
    const entry: AuditEntry = {
      at: '2026-11-23T07:00:00.000Z',
      requestId: 'AR-1',
      kind: 'redeem',
      action: 'failed',
      state: 'failed',
      actor: 'UAPPROVERA',
      note: '\u202e'.repeat(500),
    };
    const list = auditList([entry, { ...entry, note: 'short' }], 'LIVE');
    expect(refusal(list)).toBeUndefined();
    expect(slackTexts(list).mrkdwn.join('\n')).toContain('short');
  });

  it('lists forty approvers and forty readers with long names in the policy', () => {
    const people = (prefix: string) =>
      Array.from({ length: 40 }, (_, i) => ({
        id: `U${prefix}${i}`,
        name: `${prefix}${'n'.repeat(18)}${i}`,
      }));
    const policy = policyMessage({
      tiers: [{ min: Money.zero(), approvals: 1 }],
      approvers: people('A'),
      group: { id: 'S1', members: people('G') },
      ttlMs: 86_400_000,
      reminders: [],
      approvalsChannel: 'CAPPROVALS',
      environment: 'live',
      roles: {
        readers: { everyone: false, people: people('R'), groups: [] },
        requesters: { everyone: false, people: people('Q'), groups: [] },
        auditors: { everyone: false, people: people('D'), groups: [] },
        ownPools: [],
      },
    });
    expect(refusal(policy)).toBeUndefined();
    const shown = slackTexts(policy).mrkdwn.join('\n');
    for (const last of ['A', 'G', 'R', 'Q', 'D']) expect(shown).toContain(`${last}${'n'.repeat(18)}39`);
  });

  it('reports ten failures whose references and reasons are heavy in `&` and `<`', () => {
    const failure = (i: number): Movement => ({
      reference: `${'&'.repeat(79)}${i}`,
      kind: 'withdrawal',
      direction: 'out',
      amount: '1000',
      fee: '0',
      at: '2026-11-23T07:00:00.000Z',
      status: 'failed',
      reason: '<'.repeat(120),
    });
    const failures = Array.from({ length: 12 }, (_, i) => failure(i));
    const zero = { deposit: '0', withdrawal: '0', redemption: '0', bridge: '0', other: '0' };
    const report: Report = {
      period: { label: 'last 7 days', from: NOW, to: NOW, days: [] },
      treasury: {
        environment: 'live',
        opening: '0',
        closing: '0',
        inflows: zero,
        outflows: zero,
        fees: '0',
        largest: failures.map((m) => ({ ...m, reference: '&'.repeat(800) })),
        failures,
        days: [],
        movements: failures,
      },
      approvals: { filed: 0, approved: 0, rejected: 0, expired: 0, perApprover: [] },
    };
    expect(refusal(reportSummary(report, { madeAt: NOW }))).toBeUndefined();
  });
});
