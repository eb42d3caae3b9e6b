// The same payment filed twice: the engine links a withdrawal to another of the same kind, amount and
// destination filed, waiting or sent in the last 24 h, and refuses it from a form that did not ask
// "file it again?"; it also says which earlier request to a destination not paid yet comes first.
// Against the real client and the embedded sandbox.
import { describe, expect } from 'vitest';
import type { RequestDraft } from '../../src/approvals/index.js';
import { SAME_REQUEST_MS, SameRequestError } from '../../src/approvals/same-request.js';
import { approveAsSeen, rejectAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, DEST, engineTest, REQUESTER, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';

/** `base` and `bnb`: the first two networks the sandbox lists as enabled. */
const test = engineTest
  .extend('base', async ({ networkId }) => networkId)
  .extend('bnb', async ({ fx }) => (await twoNetworks(fx.client))[1]);

const withdrawal = (base: string, amount: string, network = base, address = DEST): RequestDraft =>
  withdrawalDraft(network, amount, address);

describe('the same payment filed again', () => {
  test('links a second ₦2,222 to the same address and purpose to the first, still waiting', async ({
    fx,
    base,
  }) => {
    const first = await fileDraft(fx.engine, withdrawal(base, '2222'));
    expect(first.earlier).toBeUndefined();
    fx.clock.advance(35_000);
    const second = await fileDraft(fx.engine, withdrawal(base, '2222.00'));
    expect(second.earlier).toEqual({
      same: { id: first.id, state: 'pending', at: first.createdAt },
      unsent: { id: first.id, at: first.createdAt },
    });
    expect((await fx.engine.get(second.id))?.earlier).toEqual(second.earlier);
  });

  test('finds it on another EVM network (one key holder), and not for another amount', async ({
    fx,
    base,
    bnb,
  }) => {
    const first = await fileDraft(fx.engine, withdrawal(base, '2222'));
    const there = await fileDraft(fx.engine, withdrawal(base, '2222', bnb, DEST.toLowerCase()));
    expect(there.earlier?.same?.id).toBe(first.id);
    const other = await fileDraft(fx.engine, withdrawal(base, '2223'));
    expect(other.earlier?.same).toBeUndefined();
    const third = await fileDraft(fx.engine, withdrawal(base, '5000'));
    // Not the same payment, but the first one to this destination still waits: it is the first payment.
    expect(third.earlier).toEqual({ unsent: { id: first.id, at: first.createdAt } });
  });

  test('says sent once the first went out, and nothing a day after it was sent', async ({ fx, base }) => {
    const first = await fileDraft(fx.engine, withdrawal(base, '2222'));
    await approveAsSeen(fx.engine, first.id, APPROVER_A);
    await fx.engine.idle();
    const sent = await fx.engine.get(first.id);
    expect(sent?.state).toBe('sent');
    const second = await fileDraft(fx.engine, withdrawal(base, '2222'));
    expect(second.earlier).toEqual({
      same: { id: first.id, state: 'sent', at: sent?.outcome?.sentAt },
    });
    await fx.engine.cancel(second.id, REQUESTER);
    fx.clock.advance(SAME_REQUEST_MS);
    expect((await fileDraft(fx.engine, withdrawal(base, '2222'))).earlier).toBeUndefined();
  });

  test('does not link one that ended with nothing sent', async ({ fx, base }) => {
    const first = await fileDraft(fx.engine, withdrawal(base, '2222'));
    await rejectAsSeen(fx.engine, first.id, APPROVER_A, 'typed twice');
    expect((await fileDraft(fx.engine, withdrawal(base, '2222'))).earlier).toBeUndefined();
  });
});

describe('filed from a form', () => {
  test('is refused until the requester says to file it again, then says so in the audit step', async ({
    fx,
    base,
  }) => {
    const first = await fileDraft(fx.engine, withdrawal(base, '2222'));
    const checks = await fx.engine.preflight(withdrawal(base, '2222'));
    expect(checks.sameAs).toEqual({ id: first.id, state: 'pending', at: first.createdAt });
    const refused = fileDraft(fx.engine, withdrawal(base, '2222'), { preflight: checks });
    await expect(refused).rejects.toBeInstanceOf(SameRequestError);
    await expect(refused).rejects.toMatchObject({ mark: { id: first.id } });
    expect(await fx.engine.openRequests()).toHaveLength(1);

    const sameAs = checks.sameAs && { ...checks.sameAs, confirmed: true };
    const again = await fileDraft(fx.engine, withdrawal(base, '2222'), { preflight: { ...checks, sameAs } });
    expect(again.earlier?.same).toEqual({
      id: first.id,
      state: 'pending',
      at: first.createdAt,
      confirmed: true,
    });
    expect(again.preflight?.sameAs).toBeUndefined();
    expect(again.history[0]?.note).toContain(`same amount and destination as ${first.id}`);
  });

  test('is refused when another one was filed after the form asked about the first', async ({ fx, base }) => {
    const first = await fileDraft(fx.engine, withdrawal(base, '2222'));
    const checks = await fx.engine.preflight(withdrawal(base, '2222'));
    const between = await fileDraft(fx.engine, withdrawal(base, '2222'));
    const sameAs = checks.sameAs && { ...checks.sameAs, confirmed: true };
    expect(sameAs?.id).toBe(first.id);
    await expect(
      fileDraft(fx.engine, withdrawal(base, '2222'), { preflight: { ...checks, sameAs } }),
    ).rejects.toMatchObject({ mark: { id: between.id } });
  });
});
