// The approval message as a pure function: what approvers read at each step.
import { describe, expect, it } from 'vitest';
import { AMOUNT_DIFFERS } from '../../../src/approvals/amount-check.js';
import { backIfApproverLeft } from '../../../src/approvals/approver-left.js';
import { closeUnsendable } from '../../../src/approvals/binding.js';
import type { ApprovalRequest } from '../../../src/approvals/types.js';
import { naira } from '../../../src/format/display.js';
import { bankUnderCode } from '../../../src/slack/approvals/blocks/bank-modal.js';
import { windowWords } from '../../../src/slack/approvals/blocks/limits.js';
import { pendingList, refusalText } from '../../../src/slack/approvals/blocks/lists.js';
import { approvalMessage } from '../../../src/slack/approvals/blocks/message.js';
import { requesterNotice, stepText } from '../../../src/slack/approvals/blocks/steps.js';
import { auditList } from '../../../src/slack/audit/list-blocks.js';

const NOW = new Date('2026-11-23T08:00:00.000Z');

const redeem = (over: Partial<ApprovalRequest> = {}): ApprovalRequest =>
  ({
    id: 'AR-0123456789',
    kind: 'redeem',
    environment: 'live',
    amount: '1250000.50',
    payload: { amount: '1250000.50', bankCode: '058', accountNumber: '0123456789' },
    display: { bankName: 'Guaranty Trust Bank', accountName: 'ADA OKAFOR' },
    purpose: 'Refund to customer',
    requester: 'UREQ',
    approvals: [{ user: 'UA', at: '2026-11-23T07:59:00.000Z' }],
    requiredApprovals: 2,
    state: 'pending',
    createdAt: '2026-11-23T07:00:00.000Z',
    expiresAt: '2026-11-24T07:00:00.000Z',
    round: 0,
    history: [
      {
        at: '2026-11-23T07:59:00.000Z',
        state: 'pending',
        action: 'approval-added',
        actor: 'UA',
        note: '1 of 2',
      },
    ],
    ...over,
  }) as ApprovalRequest;

const text = (request: ApprovalRequest) => JSON.stringify(approvalMessage(request, NOW).blocks);

describe('approval message', () => {
  it('shows amount, bank, account, resolved name, requester, approvals, expiry and environment', () => {
    const shown = text(redeem());
    for (const part of [
      '₦1,250,000.50',
      'Guaranty Trust Bank · 0123456789',
      'ADA OKAFOR',
      '<@UREQ>',
      '1 of 2 (<@UA>)',
      'LIVE',
      'Tue 24 Nov 2026, 08:00 WAT',
      'in 23 hours',
    ]) {
      expect(shown).toContain(part);
    }
    expect(shown).toContain('approval.approve');
    expect(shown).toContain('approval.reject');
    expect(shown).toContain('approval.cancel');
  });

  it('drops the buttons once the request has left pending, and shows the reference', () => {
    const sent = redeem({ state: 'sent', outcome: { reference: 'RD-42' } });
    const shown = text(sent);
    expect(shown).not.toContain('approval.approve');
    expect(shown).toContain('RD-42');
  });

  it('says why a request went back to the approvers', () => {
    const back = redeem({ approvals: [], round: 1, reason: 'the account name is now "B" (was "A")' });
    expect(text(back)).toContain('Sent back to the approvers: the account name is now');
  });

  it('formats Naira with separators and two decimals', () => {
    expect(naira('1500.5')).toBe('₦1,500.50');
    expect(naira('100')).toBe('₦100.00');
    expect(naira('1234567.89')).toBe('₦1,234,567.89');
  });

  it('tells the requester the steps that concern them, and not the others', () => {
    expect(requesterNotice(redeem())).toBeUndefined();
    const approved = redeem({
      state: 'approved',
      history: [{ at: '', state: 'approved', action: 'approved', actor: 'UB' }],
    });
    expect(requesterNotice(approved)).toContain('approved by <@UB>');
    expect(stepText(approved)).toBe('Approved by <@UB>');
  });

  it('tells the requester once that nothing was sent, whatever the failure note says at its end', () => {
    const failedWith = (reason: string) =>
      redeem({
        state: 'failed',
        outcome: { reason, nothingSent: true },
        history: [{ at: '', state: 'failed', action: 'failed' }],
      });
    for (const reason of [
      AMOUNT_DIFFERS,
      'it was filed under another API key than the one the bot now uses; nothing was sent',
      'the transaction list is too long to read back to its approval (9 pages read): it may have gone out already, so nothing was sent',
      'Insufficient balance',
    ]) {
      const words = requesterNotice(failedWith(reason)) ?? '';
      expect(words).toMatch(/^Your request .* failed, nothing was sent: /);
      expect(words.split('nothing was sent')).toHaveLength(2);
      expect(words).toContain(reason.replace(/(;|,? so) nothing was sent$/, '').slice(0, 40));
    }
  });

  it('tells the requester an expiry held by a freeze apart from one short of approvals, whatever the tiers ask now', () => {
    const expiredAfter = (state: ApprovalRequest['state'], approvals: ApprovalRequest['approvals']) =>
      redeem({
        state: 'expired',
        approvals,
        history: [
          { at: '', state, action: state === 'approved' ? 'approved' : 'approval-added', actor: 'UA' },
          { at: '', state: 'expired', action: 'expired' },
        ],
      });
    const two = [
      { user: 'UA', at: '' },
      { user: 'UB', at: '' },
    ];
    // Approved at two, then held by a freeze until it expired: approved, though a count of three now shows.
    const held = expiredAfter('approved', two);
    expect(requesterNotice({ ...held, requiredApprovals: 3 })).toContain(
      'was approved, but held by a freeze',
    );
    // Two approvals, still pending (tiers raised since filing asked three): never approved.
    const short = expiredAfter('pending', two);
    expect(requesterNotice(short)).toContain('expired before it had enough approvals');
  });

  it('names the approver who left the pool as a mention beside the note, in the thread and the audit list', () => {
    const approved = redeem({ state: 'approved' });
    const policy = {
      approvalStillCounts: (a: { user: string }) => (a.user === 'UA' ? 'left' : 'counts'),
    } as const;
    const back = backIfApproverLeft(policy, approved, NOW);
    const shown = back ? stepText(back) : '';
    expect(shown).toContain('(<@UA> left the pool)');
    expect(shown).not.toContain('&lt;');
    const listed = JSON.stringify(
      auditList(
        [{ at: NOW.toISOString(), requestId: 'AR-1', kind: 'redeem', action: 'sent-back', subject: 'UA' }],
        'LIVE',
      ),
    );
    expect(listed).toContain('(<@UA> left the pool)');
  });

  it('tells a delegator of a waiting delegation the bot cancelled, and not of one closed by a switch of credentials', () => {
    const waiting = redeem({
      kind: 'delegation',
      amount: undefined,
      payload: { delegator: 'UREQ', delegate: 'UDEL', until: '2026-11-30T07:00:00.000Z' },
      approvals: [],
    } as Partial<ApprovalRequest>);
    const problem = 'it was filed for SANDBOX, but the bot now uses LIVE credentials; nothing was sent';
    const switched = closeUnsendable(waiting, problem, NOW);
    expect(requesterNotice(switched)).toBeUndefined();
    expect(stepText(switched)).toBe(`Cancelled — ${problem}`);
    const note = 'cancelled by the bot: its delegate is a guest of the workspace';
    const withdrawn = redeem({
      ...waiting,
      state: 'cancelled',
      history: [{ at: '', state: 'cancelled', action: 'delegation-withdrawn', note }],
    });
    expect(requesterNotice(withdrawn)).toBe(`Your delegation to <@UDEL> was ${note}; nothing is in effect.`);
    expect(stepText(withdrawn)).toBe('Cancelled by the bot — its delegate is a guest of the workspace');
  });

  it('says once that the bot ended a delegation in effect, who and why, in its thread and its message', () => {
    const note = 'ended by the bot: its delegate is a guest of the workspace';
    const ended = redeem({
      kind: 'delegation',
      amount: undefined,
      payload: { delegator: 'UREQ', delegate: 'UDEL', until: '2026-11-30T07:00:00.000Z' },
      state: 'completed',
      history: [
        { at: '2026-11-23T07:00:00.000Z', state: 'completed', action: 'completed' },
        { at: '2026-11-23T07:30:00.000Z', state: 'completed', action: 'delegation-revoked', note },
      ],
    } as Partial<ApprovalRequest>);
    expect(stepText(ended)).toBe('Delegation ended by the bot — its delegate is a guest of the workspace');
    expect(text(ended)).toContain(
      ':no_entry_sign: Ended by the bot (Mon 23 Nov 2026, 08:30 WAT): no longer in effect — its delegate is a guest of the workspace',
    );
    expect(requesterNotice(ended)).toBe(`Your delegation to <@UDEL> was ${note}; it is no longer in effect.`);
    // Revoked by a person: who, as before.
    const revoked = redeem({
      ...ended,
      history: [
        ended.history[0],
        { ...ended.history[1], actor: 'UREQ', note: 'taken back by the delegator' },
      ],
    } as Partial<ApprovalRequest>);
    expect(stepText(revoked)).toBe('Delegation revoked by <@UREQ> — taken back by the delegator');
    expect(text(revoked)).toContain(
      ':no_entry_sign: Revoked by <@UREQ> (Mon 23 Nov 2026, 08:30 WAT): no longer in effect"',
    );
  });

  it('explains each refusal in words', () => {
    expect(refusalText('requester', redeem())).toContain('cannot approve');
    expect(refusalText('not-approver')).toContain('not an approver');
    expect(refusalText('already-approved', redeem())).toContain('2 distinct approvals');
  });
});

describe('pending list', () => {
  const checks = { at: '2026-11-23T07:00:00.000Z' };
  const lookAlike = {
    candidate: '0x52908400098527886E0F7030069857D2E4169EE7',
    known: '0x52908400098527886E0F7030069857D2E4169EE8',
    differs: [[41, 42]] as Array<[number, number]>,
    knownAs: 'paid' as const,
  };
  const row = (request: ApprovalRequest) => JSON.stringify(pendingList([request], NOW, 'LIVE').blocks[1]);

  it('marks a look-alike address and a first payment on the request line, so an approver can triage', () => {
    const marked = row(redeem({ preflight: { ...checks, lookAlike, firstPayment: true } }));
    expect(marked).toContain(':warning: *Look-alike address*');
    expect(marked).toContain(':new: first payment to this destination');
  });

  it('shows no marks on a request whose checks found nothing to look at twice', () => {
    const plain = row(redeem({ preflight: { ...checks, firstPayment: false } }));
    expect(plain).not.toContain(':warning:');
    expect(plain).not.toContain(':new:');
  });
});

describe('the bank under a chosen code', () => {
  const GTB = { code: '058', name: 'Guaranty Trust Bank' };
  const TWINS = [
    { code: '090', name: 'Alpha Microfinance Bank' },
    { code: '090', name: 'Beta Microfinance Bank' },
  ];

  it('is the listed bank of that code, by the list’s name, whatever name the option carried', () => {
    expect(bankUnderCode([GTB, ...TWINS], { code: '058', name: 'Access Bank' })).toEqual(GTB);
    expect(bankUnderCode([GTB], { code: '999', name: 'Guaranty Trust Bank' })).toBeUndefined();
  });

  it('is told apart by name where the list gives one code to several banks, and refused when it cannot be', () => {
    expect(bankUnderCode(TWINS, { code: '090', name: 'Beta Microfinance Bank' })).toEqual(TWINS[1]);
    expect(bankUnderCode(TWINS, { code: '090', name: 'Gamma Bank' })).toBe('several');
  });
});

describe('a limit window in words', () => {
  it('says a window of seconds as the window the bot counts over', () => {
    expect(windowWords(90_000)).toBe('1 min 30 s');
    expect(windowWords(45_000)).toBe('45 s');
    expect(windowWords(3_599_000)).toBe('59 min 59 s');
    expect(windowWords(3_630_000)).toBe('1 h 30 s');
  });

  it('says whole hours and minutes as before, and whole days from two days up', () => {
    expect(windowWords(3_600_000)).toBe('1 h');
    expect(windowWords(5_400_000)).toBe('1 h 30 min');
    expect(windowWords(86_400_000)).toBe('24 h');
    expect(windowWords(2 * 86_400_000)).toBe('2 days');
    expect(windowWords(1_800_000)).toBe('30 min');
  });
});
