// A stop of an approved request (Reject, Cancel) is recorded only after the service was asked whether
// it went out already: after a store is restored from a backup taken before its call, the request is
// approved again though the money moved. Found at the service, it is settled from what the service
// says and the stop is refused; the service not answering, the stop is refused and nothing changes.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { LOOKED_UP_BEFORE_SENDING } from '../../src/approvals/index.js';
import { rejectAsSeen } from '../support/approve-as-seen.js';
import {
  APPROVER_A,
  APPROVER_B,
  type EngineFixture,
  REQUESTER,
  engineTest as test,
  withdrawalDraft,
} from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { withdrawCalls, withdrawDirectly } from './lookup-support.js';

const REASON = 'the address is a look-alike: confirmed fraud';

/** Approved and not sent (its process stopped before sending, or a backup brought it back approved). */
async function approved(fx: EngineFixture, networkId: string, amount: string): Promise<string> {
  const filed = await fileDraft(fx.engine, withdrawalDraft(networkId, amount));
  const result = await partsOf(fx.engine).core.approve(filed.id, APPROVER_A);
  if (!result.ok || result.request.state !== 'approved') throw new Error('not approved');
  return filed.id;
}

test('a rejection of an approved request that already went out is refused, and it is settled as sent', async ({
  fx,
  networkId,
}) => {
  const id = await approved(fx, networkId, '6543.21');
  const { trxRef } = await withdrawDirectly(fx, networkId, '6543.21'); // made before the backup
  const answer = await rejectAsSeen(fx.engine, id, APPROVER_B, REASON);
  expect(answer).toMatchObject({ ok: false, reason: 'found-at-the-service', request: { state: 'sent' } });
  const after = await fx.engine.get(id);
  expect(after?.state).toBe('sent');
  expect(after?.outcome?.reference).toBe(trxRef);
  expect(after?.history.at(-1)).toMatchObject({ action: LOOKED_UP_BEFORE_SENDING, state: 'sent' });
  expect(after?.history.map((h) => h.action)).not.toContain('rejected');
  expect((await fx.engine.limitUse()).approved).toBe('6543.21');
  await fx.engine.idle();
  expect(withdrawCalls(fx)).toBe(1);
});

test('a cancellation of an approved request that already went out is refused the same way', async ({
  fx,
  networkId,
}) => {
  const id = await approved(fx, networkId, '6543.22');
  await withdrawDirectly(fx, networkId, '6543.22');
  expect(await fx.engine.cancel(id, REQUESTER)).toMatchObject({
    ok: false,
    reason: 'found-at-the-service',
    request: { state: 'sent' },
  });
  expect((await fx.engine.get(id))?.state).toBe('sent');
});

test('two transactions that may be it leave it to a person, unstopped and unsent', async ({
  fx,
  networkId,
}) => {
  const id = await approved(fx, networkId, '6543.23');
  await withdrawDirectly(fx, networkId, '6543.23');
  await withdrawDirectly(fx, networkId, '6543.23');
  expect(await rejectAsSeen(fx.engine, id, APPROVER_B, REASON)).toMatchObject({
    ok: false,
    reason: 'found-at-the-service',
    request: { state: 'outcome-unknown' },
  });
  await fx.engine.idle();
  expect(withdrawCalls(fx)).toBe(2);
});

test('with the service not answering, the stop is refused and nothing changes; asked again, it is recorded', async ({
  fx,
  networkId,
}) => {
  await fx.engine.freezeSends(APPROVER_B, 'checking a look-alike address');
  const id = await approved(fx, networkId, '6543.24');
  await fx.engine.idle();
  const before = await fx.engine.get(id);
  fx.sandbox.failNext('GET', '/v1/api/transactions', 403, 1, 'IP address not whitelisted');
  expect(await rejectAsSeen(fx.engine, id, APPROVER_B, REASON)).toMatchObject({
    ok: false,
    reason: 'not-looked-up',
  });
  expect(await fx.engine.get(id)).toEqual(before);
  expect(await rejectAsSeen(fx.engine, id, APPROVER_B, REASON)).toMatchObject({
    ok: true,
    request: { state: 'rejected' },
  });
  expect((await fx.engine.limitUse()).approved).toBe('0.00');
  expect(withdrawCalls(fx)).toBe(0);
});

test('the core records no stop of an approved request that was not looked up for its round', async ({
  fx,
  networkId,
}) => {
  const id = await approved(fx, networkId, '6543.25');
  const core = partsOf(fx.engine).core;
  expect(await core.reject(id, APPROVER_B, REASON, { round: 0 })).toMatchObject({
    ok: false,
    reason: 'not-looked-up',
  });
  expect(await core.cancel(id, REQUESTER, { lookedUp: 1 })).toMatchObject({
    ok: false,
    reason: 'not-looked-up',
  });
  expect((await fx.engine.get(id))?.state).toBe('approved');
});
