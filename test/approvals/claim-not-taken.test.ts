// Where the bot holds the audit signing key, a claim whose write failed is given back on the signed
// chain (`claim-not-taken`): its entry may be there all the same (an append can fail after the head
// names it), and this process never marks or calls under it, so the next sweep sends the request once
// instead of stopping it for a person. Two keyed replicas racing the claims send each request once; a
// call whose own entry cannot be appended is not made, and the request is looked up once its lease runs out.
import { describe, expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import { EXECUTION_LEASE_MS } from '../../src/approvals/executor.js';
import { CLAIM_LEASE_MS } from '../../src/approvals/leases.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { HeadMarks } from '../../src/audit/signing.js';
import { CALL_ACTION, CLAIM_NOT_TAKEN } from '../../src/audit/verified-closings.js';
import type { Store } from '../../src/store/index.js';
import { newSigner } from '../support/audit-archive.js';
import { approvedWithdrawal, execute, test } from './closed-support.js';
import { test as delegationTest, policy, withdrawCalls } from './delegation-support.js';

/** Replicas sharing one audit signing key (each its own marks). */
const signer = newSigner();
const keyed = () => ({ policy: policy(), auditSeal: { signer, marks: new HeadMarks() } });
const keyedTest = delegationTest.extend('engineOptions', () => ({ engine: keyed() }));

type ListAppend = (list: string, value: unknown) => Promise<unknown>;

/** The store's list append failing once for the first entry `fails` picks, as a store timing out does. */
function failListAppendOnce(
  store: Store,
  fails: (entry: { action?: string; requestId?: string }) => boolean,
) {
  const lists = store as unknown as { appendToList: ListAppend };
  const real = lists.appendToList.bind(lists);
  let failed = false;
  lists.appendToList = async (list, value) => {
    if (!failed && fails(value as { action?: string; requestId?: string })) {
      failed = true;
      throw new Error('store timed out');
    }
    return real(list, value);
  };
  return () => {
    lists.appendToList = real;
  };
}

describe('a claim whose write failed', () => {
  test('its entry’s list write failing after the head moved: given back, the next sweep sends it once', async ({
    fx,
    engine,
    networkId,
  }) => {
    engine.useServiceKey('key-claim-not-taken');
    const request = await approvedWithdrawal(engine, networkId);
    const restore = failListAppendOnce(
      fx.store,
      (e) => e.action === 'executing' && e.requestId === request.id,
    );
    await expect(partsOf(engine).executor.execute(request.id)).rejects.toThrow('store timed out');
    restore();
    expect((await engine.get(request.id))?.state).toBe('approved');
    expect(withdrawCalls(fx)).toBe(0);

    // The next sweep, once the claim key's lease has run out.
    fx.clock.advance(2 * CLAIM_LEASE_MS);
    const after = await execute(engine, request.id);
    expect(withdrawCalls(fx)).toBe(1);
    expect(after?.state).toBe('sent');
    // The claim given back names the claim's round and generation; the call's entry carries the key id.
    const entries = (await new ApprovalRepository(fx.store, 'sandbox').auditLog.entries('sandbox')).filter(
      (e) => e.requestId === request.id,
    );
    const givenBack = entries.find((e) => e.action === CLAIM_NOT_TAKEN);
    expect(givenBack).toMatchObject({ state: 'approved', claim: { round: 0, generation: 0 } });
    expect(entries.find((e) => e.action === 'executing')?.claim).toEqual(givenBack?.claim);
    expect(entries.find((e) => e.action === CALL_ACTION)).toMatchObject({ keyId: 'key-claim-not-taken' });
  });

  test('its write landing but its answer lost: nothing called under it, released, then sent once', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await approvedWithdrawal(engine, networkId);
    const store = fx.store as unknown as { compareAndSet: (...args: unknown[]) => Promise<boolean> };
    const real = store.compareAndSet.bind(store);
    // The claim's compare-and-set of the request lands, and its answer is lost.
    store.compareAndSet = async (...args) => {
      const landed = await real(...args);
      if (args[0] !== `approval:${request.id}`) return landed;
      store.compareAndSet = real;
      throw new Error('store timed out');
    };
    await expect(partsOf(engine).executor.execute(request.id)).rejects.toThrow('store timed out');
    store.compareAndSet = real;
    expect((await engine.get(request.id))?.state).toBe('executing');
    expect(withdrawCalls(fx)).toBe(0);

    // The tracker releases the claim once its lease runs out; the next sweep sends it, once.
    fx.clock.advance(EXECUTION_LEASE_MS + 1000);
    await engine.tick();
    await engine.idle();
    const after = await execute(engine, request.id);
    expect(withdrawCalls(fx)).toBe(1);
    expect(after?.state).toBe('sent');
  });
});

describe('keyed replicas and the call’s entry', () => {
  keyedTest(
    'two replicas holding the audit key race the claims: each request sent once, none stopped',
    async ({ fx, engine, networkId }) => {
      const one = { engine };
      const two = await fx.another({ engine: keyed() });
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const filed = await approvedWithdrawal(engine, networkId, String(1500 + i));
        ids.push(filed.id);
      }
      await Promise.all(
        ids.flatMap((id) => [
          partsOf(one.engine)
            .executor.execute(id)
            .catch(() => undefined),
          partsOf(two.engine)
            .executor.execute(id)
            .catch(() => undefined),
        ]),
      );
      await one.engine.idle();
      await two.engine.idle();
      const states = await Promise.all(ids.map(async (id) => (await engine.get(id))?.state));
      expect(states).toEqual(ids.map(() => 'sent'));
      expect(withdrawCalls(fx)).toBe(5);
    },
  );

  test('the call’s entry not appended: nothing sent; once its lease runs out it is looked up', async ({
    fx,
    engine,
    networkId,
  }) => {
    const request = await approvedWithdrawal(engine, networkId);
    const restore = failListAppendOnce(fx.store, (e) => e.action === CALL_ACTION);
    await partsOf(engine)
      .executor.execute(request.id)
      .catch(() => undefined);
    restore();
    expect(withdrawCalls(fx)).toBe(0);

    fx.clock.advance(EXECUTION_LEASE_MS + 1000);
    await engine.tick();
    await engine.idle();
    const after = await engine.get(request.id);
    expect(withdrawCalls(fx)).toBe(0);
    expect(after?.state).toBe('outcome-unknown');
  });
});
