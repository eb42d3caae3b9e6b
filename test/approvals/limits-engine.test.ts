// Limits over time in the engine, against the real client and the embedded sandbox, on a clock the
// test moves: the split that meets the higher tier, what stops counting, the window's edge, and the
// daily limit at filing and at the final approval (the re-checked one too).

import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { LimitSettings } from '../../src/approvals/limits.js';
import { LimitExceededError } from '../../src/approvals/limits.js';
import { expireDue } from '../../src/approvals/sweeps.js';
import type { Store } from '../../src/store/index.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { VirtualClock } from '../support/clock.js';
import { redemptionDraft } from '../support/drafts.js';
import {
  APPROVER_A,
  APPROVER_B,
  engineTest,
  REQUESTER,
  twoNetworks,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

const HOUR = 3_600_000;
const WINDOW = 24 * HOUR;

const limitsTest = engineTest.extend('limits', async ({ startEngine }) => {
  return async (limits: LimitSettings, tiers = '0:1,1000000:2') => {
    const clock = new VirtualClock(Date.UTC(2026, 2, 2, 9));
    const now = () => new Date(clock.now());
    const fx = await startEngine({ tiers, engine: { limits, now } });
    const [networkId] = await twoNetworks(fx.client);
    /** Approve as two approvers (a second approval is refused harmlessly when one is enough). */
    const approveFully = async (id: string) => {
      await approveAsSeen(fx.engine, id, APPROVER_A);
      if ((await fx.engine.get(id))?.state === 'pending') await approveAsSeen(fx.engine, id, APPROVER_B);
      await fx.engine.idle();
      return fx.engine.get(id);
    };
    return { fx, clock, networkId, approveFully };
  };
});

describe('the tier of a split payment', () => {
  limitsTest('takes the requester’s total in the window, including this one', async ({ limits }) => {
    const { fx, networkId } = await limits({ windowMs: WINDOW });
    const first = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
    expect(first).toMatchObject({ requiredApprovals: 1 });
    expect(first.tierBasis).toBeUndefined();
    const second = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
    expect(second).toMatchObject({
      requiredApprovals: 2,
      tierBasis: { by: 'requester', total: '1200000.00', windowMs: WINDOW },
    });
    // Stored as filed: every surface reads it from the request.
    expect((await fx.engine.get(second.id))?.tierBasis).toEqual(second.tierBasis);
  });

  limitsTest(
    'takes the destination’s total across EVM networks: one address on Base and BNB is one destination',
    async ({ limits }) => {
      const { fx } = await limits({ windowMs: WINDOW });
      const [base, bnb] = await twoNetworks(fx.client);
      const first = await fileDraft(fx.engine, withdrawalDraft(base, '600000'));
      expect(first).toMatchObject({ requiredApprovals: 1 });
      const second = await fileDraft(fx.engine, {
        ...withdrawalDraft(bnb, '600000'),
        requester: APPROVER_B,
      });
      expect(second).toMatchObject({
        requiredApprovals: 2,
        tierBasis: { by: 'destination', total: '1200000.00', windowMs: WINDOW },
      });
    },
  );

  limitsTest('leaves out a rejected, cancelled or expired request', async ({ limits }) => {
    const { fx, networkId, clock } = await limits({ windowMs: WINDOW });
    const rejected = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
    await rejectAsSeen(fx.engine, rejected.id, APPROVER_A, 'wrong account');
    const cancelled = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
    await fx.engine.cancel(cancelled.id, REQUESTER);
    const expiring = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
    await clock.sleep(Date.parse(expiring.expiresAt) - clock.now());
    await expireDue(partsOf(fx.engine).core);
    expect((await fx.engine.get(expiring.id))?.state).toBe('expired');
    const next = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
    expect(next).toMatchObject({ requiredApprovals: 1 });
  });

  limitsTest(
    'counts a sent payment for one window from when it was sent, to the millisecond',
    async ({ limits }) => {
      const { fx, networkId, clock, approveFully } = await limits({ windowMs: WINDOW });
      const sent = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
      expect(await approveFully(sent.id)).toMatchObject({ state: 'sent' });
      await clock.sleep(WINDOW - 1);
      const inside = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
      expect(inside).toMatchObject({ requiredApprovals: 2, tierBasis: { by: 'requester' } });
      await fx.engine.cancel(inside.id, REQUESTER);
      await clock.sleep(1);
      const outside = await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'));
      expect(outside).toMatchObject({ requiredApprovals: 1 });
    },
  );
});

describe('the daily limit', () => {
  limitsTest(
    'refuses at filing what would pass it, with the figures, and files nothing',
    async ({ limits }) => {
      const { fx, networkId, approveFully } = await limits(
        { windowMs: WINDOW, dailyLimit: '1000000.00' },
        '0:1',
      );
      const sent = await fileDraft(fx.engine, withdrawalDraft(networkId, '400000'));
      await approveFully(sent.id);
      await fileDraft(fx.engine, withdrawalDraft(networkId, '300000'));
      const refused = fileDraft(fx.engine, withdrawalDraft(networkId, '300000.01'));
      await expect(refused).rejects.toBeInstanceOf(LimitExceededError);
      await expect(refused).rejects.toMatchObject({
        figures: {
          used: '700000.00',
          limit: '1000000.00',
          amount: '300000.01',
          windowMs: WINDOW,
          stage: 'filing',
        },
      });
      expect(await fx.engine.openRequests()).toHaveLength(2);
      // Up to the limit itself is allowed.
      expect(await fileDraft(fx.engine, withdrawalDraft(networkId, '300000'))).toMatchObject({
        state: 'pending',
      });
    },
  );

  limitsTest(
    'refuses a final approval that would pass a limit set after filing; the request stays pending',
    async ({ limits, sandbox }) => {
      const { fx, networkId } = await limits({ windowMs: WINDOW }, '0:1');
      const first = await fileDraft(fx.engine, withdrawalDraft(networkId, '700000'));
      const second = await fileDraft(fx.engine, withdrawalDraft(networkId, '400000'));
      // The bot restarted with a daily limit: requests filed before it are checked at their approval.
      const limited = await fx.another({
        engine: { limits: { windowMs: WINDOW, dailyLimit: '1000000.00' }, now: partsOf(fx.engine).core.now },
      });
      expect(await approveAsSeen(limited.engine, first.id, APPROVER_A)).toMatchObject({ ok: true });
      await limited.engine.idle();
      expect(await approveAsSeen(limited.engine, second.id, APPROVER_A)).toMatchObject({
        ok: false,
        reason: 'over-daily-limit',
        limit: { used: '700000.00', limit: '1000000.00', amount: '400000.00', stage: 'approval' },
        request: { id: second.id, state: 'pending' },
      });
      expect(await fx.engine.get(second.id)).toMatchObject({ state: 'pending', approvals: [] });
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
      await limited.engine.stop();
    },
  );

  limitsTest('refuses a re-checked final approval too, and lifts its hold', async ({ limits }) => {
    const { fx } = await limits({ windowMs: WINDOW }, '0:1');
    const name = (await fx.client.resolveAccount({ accountNumber: '0123456789', bankCode: '058' }))
      .accountName;
    const redemption = await fileDraft(fx.engine, redemptionDraft(REQUESTER, name));
    const limited = await fx.another({
      engine: { limits: { windowMs: WINDOW, dailyLimit: '4999.99' }, now: partsOf(fx.engine).core.now },
    });
    expect(await approveAsSeen(limited.engine, redemption.id, APPROVER_A)).toMatchObject({
      ok: false,
      reason: 'over-daily-limit',
      limit: { used: '0.00', limit: '4999.99', amount: '5000.00', stage: 'approval' },
    });
    const after = await fx.engine.get(redemption.id);
    expect(after).toMatchObject({ state: 'pending', approvals: [] });
    expect(after?.checking).toBeUndefined();
    await limited.engine.stop();
  });
});

/**
 * A replica whose limits lock has lapsed (it keeps nobody out), and whose next commit of the limits
 * index waits until released: another replica can decide in between its read and its commit.
 */
function lapsedLimitsLock(store: Store) {
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = true;
  const wrapped = new Proxy(store, {
    get: (target, property) => {
      if (property === 'withLock') {
        return (name: string, fn: () => Promise<unknown>, options?: Parameters<Store['withLock']>[2]) =>
          name.startsWith('approval-limits:') ? fn() : target.withLock(name, fn, options);
      }
      if (property === 'compareAndSet') {
        return async (key: string, expected: unknown, next: unknown) => {
          if (held && key.startsWith('approvals:limits:')) {
            held = false;
            arrive();
            await released;
          }
          return target.compareAndSet(key, expected, next);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: wrapped, arrived, release };
}

describe('a replica whose limits lock lapsed', () => {
  limitsTest('decides again on the fresh figures when another filed in between', async ({ limits }) => {
    const { fx, networkId } = await limits({ windowMs: WINDOW, dailyLimit: '1000000.00' }, '0:1');
    const lapsed = lapsedLimitsLock(fx.store);
    const stalled = await fx.another({
      store: lapsed.store,
      engine: { limits: { windowMs: WINDOW, dailyLimit: '1000000.00' }, now: partsOf(fx.engine).core.now },
    });
    // The stalled replica read an empty window and waits to commit its filing…
    const late = fileDraft(stalled.engine, withdrawalDraft(networkId, '600000'));
    late.catch(() => {});
    await lapsed.arrived;
    // …while another replica files in the room that was left.
    expect(await fileDraft(fx.engine, withdrawalDraft(networkId, '600000'))).toMatchObject({
      state: 'pending',
    });
    lapsed.release();
    await expect(late).rejects.toMatchObject({ figures: { used: '600000.00', amount: '600000.00' } });
    expect(await fx.engine.openRequests()).toHaveLength(1);
    await stalled.engine.stop();
  });
});
