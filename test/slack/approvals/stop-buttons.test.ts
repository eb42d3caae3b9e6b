// The buttons an approved request not yet claimed for sending carries: Reject and the requester's Cancel
// on its message, Reject on an approver's own DM copy and never on a delegate's; none once claimed. The
// words once stopped, or too late, say what it was: a payment not sent, or something not put into effect.
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { approvalDm } from '../../../src/slack/approvals/blocks/dm.js';
import { refusalText } from '../../../src/slack/approvals/blocks/lists.js';
import { approvalMessage } from '../../../src/slack/approvals/blocks/message.js';
import { threadReply } from '../../../src/slack/approvals/blocks/steps.js';
import type { SlackMessage } from '../../../src/slack/types.js';

const NOW = new Date('2026-11-23T08:00:00.000Z');

const approved = (over: Partial<ApprovalRequest> = {}): ApprovalRequest =>
  ({
    id: 'AR-0123456789',
    kind: 'withdraw',
    environment: 'live',
    amount: '1500.50',
    payload: {
      amount: '1500.50',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      networkId: 'base',
      shouldSaveAddress: false,
    },
    display: { networkName: 'Base' },
    purpose: 'Supplier payout INV-2231',
    requester: 'UREQ',
    approvals: [{ user: 'UA', at: '2026-11-23T07:59:00.000Z' }],
    requiredApprovals: 1,
    state: 'approved',
    createdAt: '2026-11-23T07:00:00.000Z',
    expiresAt: '2026-11-24T07:00:00.000Z',
    round: 0,
    history: [{ at: '2026-11-23T07:59:00.000Z', state: 'approved', action: 'approved', actor: 'UA' }],
    ...over,
  }) as ApprovalRequest;

const buttons = (message: SlackMessage): string[] =>
  [...JSON.stringify(message.blocks).matchAll(/"action_id":"([^"]+)"/g)].map((m) => m[1] ?? '');

describe('an approved request not yet claimed', () => {
  it('shows Reject and Cancel on its message, and no Approve', () => {
    expect(buttons(approvalMessage(approved(), NOW))).toEqual(['approval.reject', 'approval.cancel']);
    expect(buttons(approvalMessage(approved(), NOW, { approve: false }))).toEqual(['approval.cancel']);
  });

  it("shows Reject on an approver's own DM copy, even the one who approved it, and not on a delegate's", () => {
    const own = approvalDm(approved(), NOW, 'UA', undefined, undefined, true);
    expect(buttons(own)).toEqual(['approval.reject']);
    expect(own.text).toContain('You can still reject it here');
    const delegate = approvalDm(approved(), NOW, 'UDELEGATE', undefined, undefined, false);
    expect(buttons(delegate)).toEqual([]);
    expect(delegate.text).toContain('Nothing is waiting for you here any more');
  });

  it('says held on every DM copy, as its message does, while a freeze holds it', () => {
    const freeze = { at: '2026-11-23T07:58:00.000Z', by: 'UB', reason: 'checking an address' };
    const held = approvalMessage(approved(), NOW, undefined, freeze);
    expect(JSON.stringify(held.blocks)).toContain('Approved, held: sends are frozen');
    for (const dm of [
      approvalDm(approved(), NOW, 'UA', undefined, freeze, true),
      approvalDm(approved(), NOW, 'UDELEGATE', undefined, freeze, false),
    ]) {
      expect(dm.text).toContain('Approved, held: sends are frozen');
      expect(JSON.stringify(dm.blocks[0])).toContain('Approved, held: sends are frozen');
    }
    // Unfrozen, the header says approved as the message does.
    expect(approvalDm(approved(), NOW, 'UA', undefined, undefined, true).text).not.toContain('held');
  });

  it('shows no button once claimed for sending', () => {
    const executing = approved({ state: 'executing' });
    expect(buttons(approvalMessage(executing, NOW))).toEqual([]);
    expect(buttons(approvalDm(executing, NOW, 'UA', undefined, undefined, true))).toEqual([]);
  });

  it('says on every DM copy that the send is under way once claimed, whether or not the call has gone out', () => {
    for (const phase of ['claimed', 'sending'] as const) {
      const execution = { owner: 'bot-1', leaseUntil: '2026-11-23T08:01:00.000Z', generation: 0, phase };
      const executing = approved({ state: 'executing', execution });
      for (const [user, ownRight] of [
        ['UA', true],
        ['UDELEGATE', false],
      ] as const) {
        const dm = approvalDm(executing, NOW, user, undefined, undefined, ownRight);
        expect(dm.text, `${phase} ${user}`).toContain('Sending to the service');
        expect(dm.text).not.toMatch(/not sent|approved/i);
      }
    }
  });
});

describe('the words for a request stopped after approval', () => {
  const rejectedAfter = (kind: ApprovalRequest['kind']) => {
    const request = approved({ kind });
    return {
      ...request,
      state: 'rejected',
      history: [
        ...request.history,
        { at: '2026-11-23T08:00:00.000Z', state: 'rejected', action: 'rejected', actor: 'UB', note: 'no' },
      ],
    } as ApprovalRequest;
  };

  it('say a payment will not be sent, and what takes effect in the bot (an unfreeze) will not take effect', () => {
    expect(threadReply(rejectedAfter('withdraw'))).toContain(
      'after approval, before sending: it will not be sent',
    );
    const unfreeze = threadReply(rejectedAfter('unfreeze'));
    expect(unfreeze).toContain('after approval: it will not take effect');
    expect(unfreeze).not.toContain('sent');
  });

  it('tell one too late that a payment was claimed for sending, and a delegation was being put into effect', () => {
    const executing = (kind: ApprovalRequest['kind']) => approved({ kind, state: 'executing' });
    expect(refusalText('already-sending', executing('withdraw'))).toContain('already claimed for sending');
    expect(refusalText('already-sending', executing('delegation'))).toContain(
      'already being put into effect',
    );
  });
});
