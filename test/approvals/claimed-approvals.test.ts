// The approvals a request is claimed with are the approvals it is sent on: a store writer who changes
// them between the claim and the write-ahead mark (after the checks made before the claim) sends
// nothing, and the request fails with a note that says so.
import { expect } from 'vitest';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { APPROVALS_CHANGED } from '../../src/approvals/send-checks.js';
import { createStore, type Store } from '../../src/store/index.js';
import { APPROVER_A, APPROVER_B, OUTSIDER, twoNetworks, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { assertedByHand, deviceFor, signAndApprove, signing, test } from './signed-support.js';

/** `inner`, but `before` runs once, just before the write-ahead mark on request `id`'s claim. */
function beforeTheMark(inner: Store, id: () => string, before: () => Promise<void>): Store {
  let pending: (() => Promise<void>) | undefined = before;
  return new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const [key, , written] = args as [string, unknown, { sending?: boolean } | undefined];
        const marking = property === 'compareAndSet' && written?.sending === true;
        if (pending && marking && key.startsWith(`approval-exec:${id()}:`)) {
          const run = pending;
          pending = undefined;
          await run();
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

test('an approval swapped in after the claim, in an approver’s place, sends nothing: the request fails', async ({
  startEngine,
  defer,
}) => {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  let id = '';
  let swap = async () => {};
  const store = beforeTheMark(
    inner,
    () => id,
    () => swap(),
  );
  const fx = await startEngine({ store, tiers: '0:2', engine: { signing } });
  const [networkId] = await twoNetworks(fx.client);
  const deviceA = await deviceFor(fx.engine, APPROVER_A);
  const deviceB = await deviceFor(fx.engine, APPROVER_B);
  const deviceO = await deviceFor(fx.engine, OUTSIDER);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  id = request.id;
  // Once it is claimed, a store writer puts the outsider's own signed approval, "in A's place", where
  // A's was: every check at the mark would pass it (its signature verifies, the people are distinct).
  const outsiders = await assertedByHand(fx.engine, request, OUTSIDER, deviceO);
  swap = async () => {
    const repo = new ApprovalRepository(inner, 'sandbox');
    const claimed = await repo.get(id);
    if (!claimed) throw new Error('not stored');
    expect(claimed.state).toBe('executing');
    const approvals = claimed.approvals.map((a) =>
      a.user === APPROVER_A ? { user: OUTSIDER, onBehalfOf: APPROVER_A, at: a.at, evidence: outsiders } : a,
    );
    expect(await repo.saveIf(claimed, { ...claimed, approvals })).toBe(true);
  };
  expect((await signAndApprove(fx.engine, id, APPROVER_B, deviceB)).result).toMatchObject({ ok: true });
  expect((await signAndApprove(fx.engine, id, APPROVER_A, deviceA)).result).toMatchObject({ ok: true });
  await fx.engine.idle();
  const failed = await fx.engine.get(id);
  expect(failed).toMatchObject({
    state: 'failed',
    outcome: { reason: APPROVALS_CHANGED, nothingSent: true },
  });
  expect(failed?.history.at(-1)).toMatchObject({ action: 'failed', note: APPROVALS_CHANGED });
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
});

test('approvals left as claimed are sent once', async ({ startEngine }) => {
  const fx = await startEngine({ tiers: '0:2', engine: { signing } });
  const [networkId] = await twoNetworks(fx.client);
  const deviceA = await deviceFor(fx.engine, APPROVER_A);
  const deviceB = await deviceFor(fx.engine, APPROVER_B);
  const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '5000'));
  await signAndApprove(fx.engine, request.id, APPROVER_B, deviceB);
  await signAndApprove(fx.engine, request.id, APPROVER_A, deviceA);
  await fx.engine.idle();
  expect((await fx.engine.get(request.id))?.state).toBe('sent');
  expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});
