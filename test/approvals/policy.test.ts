// The rules of the engine without the service: transitions, tiers, who may approve.
import { describe, expect, it } from 'vitest';
import { ApprovalPolicy, parseTiers, requiredApprovals } from '../../src/access/index.js';
import { LOOKED_UP_BEFORE_SENDING } from '../../src/approvals/index.js';
import { canTransition, InvalidTransitionError, transition } from '../../src/approvals/state-machine.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { Money } from '../../src/format/money.js';

const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest =>
  ({
    id: 'AR-1',
    kind: 'withdraw',
    environment: 'sandbox',
    amount: '100.00',
    payload: { amount: '100.00', address: '0x1', networkId: 'n', shouldSaveAddress: false },
    display: {},
    purpose: 'Supplier payout INV-2231',
    requester: 'U_REQ',
    approvals: [],
    requiredApprovals: 1,
    state: 'pending',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-01-02T00:00:00.000Z',
    round: 0,
    history: [],
    ...over,
  }) as ApprovalRequest;

describe('state machine', () => {
  it('allows the documented life and nothing else', () => {
    expect(canTransition('pending', 'approved')).toBe(true);
    expect(canTransition('approved', 'executing')).toBe(true);
    expect(canTransition('executing', 'outcome-unknown')).toBe(true);
    expect(canTransition('outcome-unknown', 'sent')).toBe(true);
    expect(canTransition('sent', 'completed')).toBe(true);
    // Never back to executing, never out of a final state.
    expect(canTransition('outcome-unknown', 'executing')).toBe(false);
    expect(canTransition('sent', 'executing')).toBe(false);
    expect(canTransition('completed', 'failed')).toBe(false);
    expect(canTransition('rejected', 'approved')).toBe(false);
    // A person may stop an approved request before its claim, never once it is claimed or sent.
    expect(canTransition('approved', 'cancelled')).toBe(true);
    expect(canTransition('approved', 'rejected')).toBe(true);
    for (const from of ['executing', 'sent', 'outcome-unknown', 'completed', 'failed'] as const) {
      expect(canTransition(from, 'rejected')).toBe(false);
      expect(canTransition(from, 'cancelled')).toBe(false);
    }
  });

  it('hands a claim back to approved only while its write-ahead mark is not written', () => {
    const lease = { owner: 'o', leaseUntil: '2026-01-01T00:00:00.000Z', generation: 0 };
    const step = { action: 'released', at: new Date() };
    const claimed = request({ state: 'executing', execution: { ...lease, phase: 'claimed' } });
    expect(transition(claimed, 'approved', step).state).toBe('approved');
    const sending = request({ state: 'executing', execution: { ...lease, phase: 'sending' } });
    expect(() => transition(sending, 'approved', step)).toThrow(InvalidTransitionError);
    // A claim written before the mark existed may have been sent.
    expect(() => transition(request({ state: 'executing', execution: lease }), 'approved', step)).toThrow(
      InvalidTransitionError,
    );
  });

  it('settles an approved request without a call only from the lookup before a late send', () => {
    const approved = request({ state: 'approved' });
    const looked = { action: LOOKED_UP_BEFORE_SENDING, at: new Date() };
    for (const to of ['sent', 'completed', 'outcome-unknown'] as const) {
      expect(transition(approved, to, looked).state).toBe(to);
      expect(() => transition(approved, to, { action: to, at: new Date() })).toThrow(InvalidTransitionError);
    }
  });

  it('refuses an unlisted transition loudly and records each step', () => {
    expect(() => transition(request({ state: 'sent' }), 'approved', { action: 'x', at: new Date() })).toThrow(
      InvalidTransitionError,
    );
    const next = transition(request(), 'approved', { action: 'approved', actor: 'U_A', at: new Date(0) });
    expect(next.history.at(-1)).toEqual({
      at: '1970-01-01T00:00:00.000Z',
      state: 'approved',
      action: 'approved',
      actor: 'U_A',
    });
  });
});

describe('tiers', () => {
  it('needs more approvals from the threshold up', () => {
    const tiers = parseTiers('0:1,1000000:2, 5000000:3');
    expect(requiredApprovals(tiers, Money.parse('999999.99'))).toBe(1);
    expect(requiredApprovals(tiers, Money.parse('1000000'))).toBe(2);
    expect(requiredApprovals(tiers, Money.parse('7000000'))).toBe(3);
    expect(requiredApprovals(tiers, undefined)).toBe(1);
  });

  it('asks the top tier for a settlement change, which reroutes all future fiat', () => {
    const tiers = parseTiers('0:1,1000000:2, 5000000:3');
    expect(requiredApprovals(tiers, undefined, 'settlement')).toBe(3);
    expect(requiredApprovals(tiers, undefined, 'whitelist')).toBe(1);
    expect(requiredApprovals(parseTiers('0:1'), undefined, 'settlement')).toBe(1);
  });

  it('refuses a malformed tier list', () => {
    expect(() => parseTiers('lots')).toThrow();
    expect(() => parseTiers('0:0')).toThrow();
  });
});

describe('who may approve', () => {
  const tiers = parseTiers('0:1');

  it('refuses the requester, outsiders and a second click by the same approver', async () => {
    const policy = new ApprovalPolicy({ approvers: ['U_A', 'U_REQ'], tiers });
    expect(await policy.check(request(), 'U_REQ')).toEqual({ allowed: false, reason: 'requester' });
    expect(await policy.check(request(), 'U_X')).toEqual({ allowed: false, reason: 'not-approver' });
    const approved = request({ approvals: [{ user: 'U_A', at: '2026-01-01T00:00:00Z' }] });
    expect(await policy.check(approved, 'U_A')).toEqual({ allowed: false, reason: 'already-approved' });
    expect(await policy.check(request(), 'U_A')).toEqual({ allowed: true });
  });

  it('accepts members of the approver group, read briefly from a cache', async () => {
    let reads = 0;
    let now = 0;
    const policy = new ApprovalPolicy({
      approvers: [],
      approverGroup: 'S_TREASURY',
      tiers,
      groupMembers: async (group) => {
        reads += 1;
        return group === 'S_TREASURY' ? ['U_G'] : [];
      },
      groupCacheMs: 1000,
      now: () => now,
    });
    expect(await policy.isApprover('U_G')).toBe(true);
    expect(await policy.isApprover('U_X')).toBe(false);
    expect(reads).toBe(1);
    now = 1001;
    await policy.isApprover('U_G');
    expect(reads).toBe(2);
  });
});
