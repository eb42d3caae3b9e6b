// What counts against the limits over time, without a store: the window's totals, the end states that
// do not count, the window's edge, which total chooses the tier, and the daily limit's figures.
import { describe, expect, it } from 'vitest';
import { parseTiers, requiredApprovals } from '../../src/access/tiers.js';
import {
  type Counted,
  countWindow,
  destinationKey,
  destinationOf,
  keptEntries,
  overDailyLimit,
  stillCounts,
  tierFor,
  type WindowEntry,
  windowEntry,
} from '../../src/approvals/limits.js';
import type { ApprovalRequest, HistoryEntry, RequestState } from '../../src/approvals/types.js';
import { Money } from '../../src/format/money.js';

const HOUR = 3_600_000;
const WINDOW = 24 * HOUR;
const NOW = new Date('2026-03-02T12:00:00.000Z');
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR).toISOString();

let next = 0;
/** A withdrawal of `amount` filed `hoursAgo`, in `state` after the steps `through` (states, in order). */
function withdrawal(
  amount: string,
  options: {
    state?: RequestState;
    through?: RequestState[];
    hoursAgo?: number;
    sentHoursAgo?: number;
    requester?: string;
    address?: string;
  } = {},
): ApprovalRequest {
  const filedAt = at(options.hoursAgo ?? 1);
  const history: HistoryEntry[] = [
    { at: filedAt, state: 'pending', action: 'filed' },
    ...(options.through ?? []).map((state) => ({ at: filedAt, state, action: state })),
  ];
  return {
    id: `AR-${++next}`,
    kind: 'withdraw',
    environment: 'sandbox',
    amount,
    payload: { amount, address: options.address ?? ADDRESS, networkId: 'base', shouldSaveAddress: false },
    display: {},
    requester: options.requester ?? 'U_ADA',
    approvals: [],
    requiredApprovals: 1,
    state: options.state ?? 'pending',
    createdAt: filedAt,
    expiresAt: at(-23),
    round: 0,
    ...(options.sentHoursAgo !== undefined ? { outcome: { sentAt: at(options.sentHoursAgo) } } : {}),
    history,
  } as ApprovalRequest;
}

const counted = (requests: ApprovalRequest[], now = NOW) =>
  countWindow(requests.map(windowEntry), requests, now, WINDOW);

const total = (list: Counted[]) => list.reduce((sum, c) => sum.plus(c.amount), Money.zero()).toString();

describe('what counts in the window', () => {
  it('counts what is waiting, approved, being sent, sent, settled and of unknown outcome', () => {
    const list = counted([
      withdrawal('100.00'),
      withdrawal('200.00', { state: 'approved' }),
      withdrawal('300.00', { state: 'executing', sentHoursAgo: 1 }),
      withdrawal('400.00', { state: 'sent', sentHoursAgo: 1 }),
      withdrawal('500.00', { state: 'completed', through: ['sent'], sentHoursAgo: 2 }),
      withdrawal('600.00', { state: 'outcome-unknown', sentHoursAgo: 3 }),
    ]);
    expect(total(list)).toBe('2100.00');
    expect(list.map((c) => c.approved)).toEqual([false, true, true, true, true, true]);
  });

  it('leaves out what ended with nothing sent: rejected, cancelled, expired, failed before the service took it', () => {
    const list = counted([
      withdrawal('100.00', { state: 'rejected' }),
      withdrawal('200.00', { state: 'cancelled' }),
      withdrawal('300.00', { state: 'expired' }),
      // Refused by the service before it acted, or never sendable: nothing went out.
      withdrawal('400.00', { state: 'failed', through: ['approved', 'executing'], sentHoursAgo: 1 }),
      withdrawal('500.00', { state: 'failed', through: ['approved'] }),
    ]);
    expect(list).toEqual([]);
  });

  it('still counts a failure after the service took the call, or after an unknown outcome', () => {
    const afterSent = withdrawal('700.00', { state: 'failed', through: ['sent'], sentHoursAgo: 2 });
    const afterUnknown = withdrawal('800.00', {
      state: 'failed',
      through: ['outcome-unknown'],
      sentHoursAgo: 2,
    });
    expect(stillCounts(afterSent)).toBe(true);
    expect(stillCounts(afterUnknown)).toBe(true);
    expect(total(counted([afterSent, afterUnknown]))).toBe('1500.00');
  });

  it('keeps in the index, while inside the window, a sent request a person resolved failed, counting it again once a later report revives it', () => {
    const sent = withdrawal('700.00', { state: 'failed', through: ['sent'], sentHoursAgo: 2 });
    const resolved: ApprovalRequest = {
      ...sent,
      outcome: { ...sent.outcome, status: 'failed' },
      history: [...sent.history, { at: at(1), state: 'failed', action: 'resolved', actor: 'U_BEN' }],
    };
    const ended = withdrawal('100.00', { state: 'rejected' });
    const entries = [resolved, ended].map(windowEntry);
    expect(stillCounts(resolved)).toBe(false);
    expect(countWindow(entries, [resolved, ended], NOW, WINDOW)).toEqual([]);
    expect(keptEntries(entries, [resolved, ended], NOW, WINDOW).map((e) => e.id)).toEqual([resolved.id]);
    // A window after its call began it is left out like any other.
    expect(keptEntries(entries, [resolved, ended], new Date(NOW.getTime() + 22 * HOUR), WINDOW)).toEqual([]);
    // The service reports it completed after the person's word: a conflict, and it counts again.
    const revived: ApprovalRequest = {
      ...resolved,
      history: [...resolved.history, { at: at(0.5), state: 'failed', action: 'conflicting-reports' }],
    };
    expect(total(countWindow(entries.slice(0, 1), [revived], NOW, WINDOW))).toBe('700.00');
  });

  it('counts a sent request for one window from when its call began, and a waiting one until it ends', () => {
    const sentJustInside = withdrawal('100.00', { state: 'completed', hoursAgo: 30, sentHoursAgo: 23.99 });
    const sentAtTheEdge = withdrawal('200.00', { state: 'completed', hoursAgo: 30, sentHoursAgo: 24 });
    const waitingLong = withdrawal('300.00', { hoursAgo: 40 });
    expect(counted([sentJustInside, sentAtTheEdge, waitingLong]).map((c) => c.entry.amount)).toEqual([
      '100.00',
      '300.00',
    ]);
  });

  it('counts a request the late lookup left of unknown outcome from when it found so, not from its filing', () => {
    // Approved 30 hours ago, held (a freeze, an outage); an hour ago the lookup could not tell whether it
    // went out. No call of ours began (no sentAt): it may have gone out at any time up to that hour.
    const filed = withdrawal('900.00', { state: 'outcome-unknown', hoursAgo: 30 });
    const leftUnknown: ApprovalRequest = {
      ...filed,
      history: [...filed.history, { at: at(1), state: 'outcome-unknown', action: 'outcome-unknown' }],
    };
    expect(total(counted([leftUnknown]))).toBe('900.00');
    // Resolved by a person later, it still counts from then.
    const resolved: ApprovalRequest = {
      ...leftUnknown,
      state: 'completed',
      history: [...leftUnknown.history, { at: at(0.5), state: 'completed', action: 'resolved' }],
    };
    expect(total(counted([resolved]))).toBe('900.00');
    // One window from that hour.
    expect(counted([leftUnknown], new Date(NOW.getTime() + 23 * HOUR - 1))).toHaveLength(1);
    expect(counted([leftUnknown], new Date(NOW.getTime() + 23 * HOUR))).toEqual([]);
  });

  it('counts an entry whose request is not written yet as waiting, until a window after its filing', () => {
    const entry: WindowEntry = {
      id: 'AR-LOST',
      amount: '900.00',
      requester: 'U_ADA',
      filedAt: at(23),
    };
    expect(countWindow([entry], [undefined], NOW, WINDOW)).toMatchObject([{ approved: false }]);
    expect(countWindow([{ ...entry, filedAt: at(24) }], [undefined], NOW, WINDOW)).toEqual([]);
  });

  it('counts a final approval the daily limit let through as approved before its write lands', () => {
    const request = withdrawal('100.00');
    const marked = { ...windowEntry(request), approvedRound: 0 };
    expect(countWindow([marked], [request], NOW, WINDOW)).toMatchObject([{ approved: true }]);
    // Sent back to the approvers (a new round): the mark no longer holds.
    const back = { ...request, round: 1 };
    expect(countWindow([marked], [back], NOW, WINDOW)).toMatchObject([{ approved: false }]);
  });

  it('no longer counts that approval once the request holds other steps than its write read', () => {
    const request = withdrawal('100.00');
    const marked = { ...windowEntry(request), approvedRound: 0, approvedSteps: request.history.length };
    expect(countWindow([marked], [request], NOW, WINDOW)).toMatchObject([{ approved: true }]);
    // Approved, then waiting again in the same round (tiers raised), or its interrupted approval
    // cleared: the approving write can no longer land, so it counts as waiting.
    const step = (action: string): HistoryEntry => ({ at: at(0.5), state: 'pending', action });
    for (const moved of [
      {
        ...request,
        history: [
          ...request.history,
          { ...step('approved'), state: 'approved' as const },
          step('tiers-raised'),
        ],
      },
      { ...request, history: [...request.history, step('check-interrupted')] },
    ]) {
      expect(countWindow([marked], [moved], NOW, WINDOW)).toMatchObject([{ approved: false }]);
    }
  });
});

describe('the destination', () => {
  it('is the same EVM address whatever its case, and a bank account by bank and number', () => {
    const lower = withdrawal('1.00', { address: ADDRESS.toLowerCase() });
    expect(destinationOf(lower)).toBe(destinationOf(withdrawal('1.00')));
    expect(
      destinationOf({
        kind: 'redeem',
        amount: '1.00',
        payload: { amount: '1.00', bankCode: '058', accountNumber: '0123456789' },
        display: {},
        requester: 'U_ADA',
      }),
    ).toBe('bank:058:0123456789');
    expect(
      destinationOf({
        kind: 'bridge',
        amount: '1.00',
        payload: { originNetworkId: 'eth', destinationNetworkId: 'base', destinationAddress: ADDRESS },
        display: {},
        requester: 'U_ADA',
      }),
    ).toBe(destinationOf(withdrawal('1.00')));
  });
});

describe('one key holder, one destination', () => {
  const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
  const SOLANA = '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV';
  const on = (networkId: string, address: string) =>
    destinationOf({
      kind: 'withdraw',
      amount: '1.00',
      payload: { amount: '1.00', address, networkId, shouldSaveAddress: false },
      display: {},
      requester: 'U_ADA',
    });

  it('is an EVM address on any EVM network, and a Tron address on any Tron network', () => {
    expect(on('base', ADDRESS)).toBe(on('bsc', ADDRESS.toLowerCase()));
    expect(on('base', ADDRESS)).toBe(`wallet:evm:${ADDRESS.toLowerCase()}`);
    expect(on('tron', TRON)).toBe(on('tron-nile', TRON));
    // Other families keep their network: nothing says one key holds both.
    expect(on('sol', SOLANA)).not.toBe(on('sol-devnet', SOLANA));
  });

  it('reads index entries stored per network as the key holder', () => {
    expect(destinationKey(`wallet:base:${ADDRESS.toLowerCase()}`)).toBe(on('bsc', ADDRESS));
    expect(destinationKey(`wallet:tron-nile:${TRON}`)).toBe(on('tron', TRON));
    expect(destinationKey(on('bsc', ADDRESS))).toBe(on('bsc', ADDRESS));
    expect(destinationKey('bank:058:0123456789')).toBe('bank:058:0123456789');
  });

  it('sums what others sent to one address on two EVM networks, stored keys per network too', () => {
    const tiers = parseTiers('0:1,1000000:2');
    const approvalsFor = (amount: Money) => requiredApprovals(tiers, amount);
    const stored = { ...windowEntry(withdrawal('600000.00', { requester: 'U_BOLA' })) };
    stored.destination = `wallet:base:${ADDRESS.toLowerCase()}`;
    const window: Counted[] = [{ entry: stored, amount: Money.parseDecimal('600000.00'), approved: false }];
    const filing = {
      amount: Money.parseDecimal('600000.00'),
      requester: 'U_ADA',
      destination: on('bsc', ADDRESS),
    };
    const chosen = tierFor(window, filing, WINDOW, approvalsFor);
    expect(chosen.basis).toEqual({ by: 'destination', total: '1200000.00', windowMs: WINDOW });
    expect(approvalsFor(chosen.amount)).toBe(2);
  });
});

describe('the tier', () => {
  const tiers = parseTiers('0:1,1000000:2,5000000:3');
  const approvalsFor = (amount: Money) => requiredApprovals(tiers, amount);
  const filing = (amount: string, requester = 'U_ADA', destination = destinationOf(withdrawal('1.00'))) => ({
    amount: Money.parseDecimal(amount),
    requester,
    destination,
  });

  it('is the amount’s own when no total needs more approvals', () => {
    const window = counted([withdrawal('300000.00')]);
    expect(tierFor(window, filing('600000.00'), WINDOW, approvalsFor)).toEqual({
      amount: Money.parseDecimal('600000.00'),
    });
  });

  it("is the requester's total when it needs more, this request included", () => {
    const window = counted([
      withdrawal('600000.00', { address: '0x1111111111111111111111111111111111111111' }),
    ]);
    const chosen = tierFor(window, filing('600000.00'), WINDOW, approvalsFor);
    expect(chosen.basis).toEqual({ by: 'requester', total: '1200000.00', windowMs: WINDOW });
    expect(approvalsFor(chosen.amount)).toBe(2);
  });

  it("is the destination's total when others' payments there make it the largest", () => {
    const window = counted([
      withdrawal('700000.00', { requester: 'U_BOLA' }),
      withdrawal('600000.00', { requester: 'U_CHIDI' }),
    ]);
    const chosen = tierFor(window, filing('400000.00'), WINDOW, approvalsFor);
    expect(chosen.basis).toEqual({ by: 'destination', total: '1700000.00', windowMs: WINDOW });
  });

  it('takes the total needing the most approvals, and the requester on a tie', () => {
    const elsewhere = '0x2222222222222222222222222222222222222222';
    const mixed = counted([
      withdrawal('4500000.00', { requester: 'U_BOLA' }),
      withdrawal('900000.00', { address: elsewhere }),
    ]);
    expect(tierFor(mixed, filing('600000.00'), WINDOW, approvalsFor).basis?.by).toBe('destination');
    const tied = counted([withdrawal('600000.00')]);
    expect(tierFor(tied, filing('600000.00'), WINDOW, approvalsFor).basis?.by).toBe('requester');
  });

  it('leaves out totals older than the window', () => {
    const old = counted([withdrawal('900000.00', { state: 'completed', hoursAgo: 30, sentHoursAgo: 25 })]);
    expect(tierFor(old, filing('600000.00'), WINDOW, approvalsFor).basis).toBeUndefined();
  });
});

describe('the daily limit', () => {
  const settings = { windowMs: WINDOW, dailyLimit: '5000000.00' };
  const window = counted([
    withdrawal('3000000.00', { state: 'completed', sentHoursAgo: 2 }),
    withdrawal('1000000.00'),
  ]);

  it('at filing, counts what is on the way too, and refuses what would pass it with the figures', () => {
    expect(overDailyLimit(window, Money.parseDecimal('1000000.00'), settings, 'filing')).toBeUndefined();
    expect(overDailyLimit(window, Money.parseDecimal('1500000.00'), settings, 'filing')).toEqual({
      used: '4000000.00',
      limit: '5000000.00',
      amount: '1500000.00',
      windowMs: WINDOW,
      stage: 'filing',
    });
  });

  it('at a final approval, counts only what is approved or further on, never the request itself', () => {
    const self = window[1]?.entry.id;
    expect(
      overDailyLimit(window, Money.parseDecimal('2000000.00'), settings, 'approval', self),
    ).toBeUndefined();
    expect(
      overDailyLimit(window, Money.parseDecimal('2000000.01'), settings, 'approval', self),
    ).toMatchObject({
      used: '3000000.00',
      stage: 'approval',
    });
  });

  it('refuses nothing when no daily limit is set', () => {
    const none = { windowMs: WINDOW };
    expect(overDailyLimit(window, Money.parseDecimal('99999999.00'), none, 'filing')).toBeUndefined();
  });
});
