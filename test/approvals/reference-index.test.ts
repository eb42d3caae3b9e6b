// A service reference (or transaction id) is indexed for one request only, set-if-absent, and never
// re-pointed. A request that loses one of its two keys to another request between its check and its
// write leaves neither pointing at itself: a stale entry would hide the transaction from every later
// lookup as another request's, for good.
import { expect } from 'vitest';
import { partsOf } from '../../src/approvals/engine-parts.js';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { createStore, type Store } from '../../src/store/index.js';
import { approveAsSeen } from '../support/approve-as-seen.js';
import { APPROVER_A, type EngineFixture, engineTest, withdrawalDraft } from '../support/engine.js';
import { fileDraft } from '../support/filing.js';
import { test } from '../support/fixtures.js';

const answered = (id: string, reference: string, transactionId: string) =>
  ({ id, outcome: { reference, transactionId } }) as ApprovalRequest;

test('removes the reference it indexed when another request takes the transaction id meanwhile', async ({
  defer,
}) => {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  // The holder's own write of the transaction id lands just after this request wrote its reference.
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'setIfAbsent') return value.bind(target);
      return async (key: string, id: unknown) => {
        const won = await target.setIfAbsent(key, id);
        if (key === 'approval-ref:REF-1' && id === 'AR-A')
          await target.setIfAbsent('approval-ref:TX-1', 'AR-H');
        return won;
      };
    },
  }) as Store;
  const repo = new ApprovalRepository(store, 'sandbox');
  expect(await repo.indexOutcome(answered('AR-A', 'REF-1', 'TX-1'))).toBe('AR-H');
  expect(await repo.findIdByReference('TX-1')).toBe('AR-H');
  expect(await repo.findIdByReference('REF-1')).toBeUndefined();
  // The holder, answered with both, then indexes the reference as its own.
  expect(await repo.indexOutcome(answered('AR-H', 'REF-1', 'TX-1'))).toBeUndefined();
  expect(await repo.findIdByReference('REF-1')).toBe('AR-H');
});

test('keeps what another request indexed first, and what this request indexed before', async ({ defer }) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  const repo = new ApprovalRepository(store, 'sandbox');
  expect(await repo.indexOutcome(answered('AR-A', 'REF-2', 'TX-2'))).toBeUndefined();
  expect(await repo.indexOutcome(answered('AR-A', 'REF-2', 'TX-2'))).toBeUndefined();
  expect(await repo.indexOutcome(answered('AR-B', 'REF-2', 'TX-3'))).toBe('AR-A');
  expect(await repo.findIdByReference('REF-2')).toBe('AR-A');
  expect(await repo.findIdByReference('TX-3')).toBeUndefined();
});

test('removes an entry only while it names the request, never one another request took meanwhile', async ({
  defer,
}) => {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  // Just before each removal of a reference, it is removed (by another run of the same request) and
  // taken by another request.
  const takenMeanwhile = new Map([
    ['approval-ref:REF-7', 'AR-B'],
    ['approval-ref:REF-8', 'AR-C'],
  ]);
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'setIfAbsent') {
        // The transaction id is taken by another request just after this one indexed REF-8.
        return async (key: string, id: unknown) => {
          const won = await target.setIfAbsent(key, id);
          if (key === 'approval-ref:REF-8') await target.setIfAbsent('approval-ref:TX-8', 'AR-H');
          return won;
        };
      }
      if (property !== 'delete' && property !== 'compareAndDelete') return value.bind(target);
      return async (key: string, ...rest: unknown[]) => {
        const other = takenMeanwhile.get(key);
        if (other) {
          takenMeanwhile.delete(key);
          await target.delete(key);
          await target.setIfAbsent(key, other);
        }
        return (value as (...args: unknown[]) => Promise<boolean>).call(target, key, ...rest);
      };
    },
  }) as Store;
  const repo = new ApprovalRepository(store, 'sandbox');
  expect(await repo.indexOutcome(answered('AR-A', 'REF-7', 'TX-7'))).toBeUndefined();
  await repo.unindexUnrecorded(['REF-7', 'TX-7'], undefined, 'AR-A');
  expect(await repo.findIdByReference('REF-7')).toBe('AR-B');
  expect(await repo.findIdByReference('TX-7')).toBeUndefined();
  // The rollback of an indexing that lost its second key to another request.
  expect(await repo.indexOutcome(answered('AR-A', 'REF-8', 'TX-8'))).toBe('AR-H');
  expect(await repo.findIdByReference('REF-8')).toBe('AR-C');
});

engineTest(
  'removes what a lookup indexed once it finds the request settled meanwhile by a person',
  async ({ fx, networkId }) => {
    fx.sandbox.dropResponse('POST', '/v1/api/withdraw');
    const request = await fileDraft(fx.engine, withdrawalDraft(networkId, '9876.50'));
    await approveAsSeen(fx.engine, request.id, APPROVER_A);
    await fx.engine.idle();
    expect((await fx.engine.get(request.id))?.state).toBe('outcome-unknown');
    const made = fx.sandbox
      .transactions()
      .find((tx) => tx.trx_type === 'withdraw' && tx.amount === '9876.50');
    expect(made).toBeDefined();
    // Its write of what it found is refused: a person resolved the request as failed just before (the
    // step as another replica wrote it; this lookup holds the request's lock here).
    let refuse = true;
    const store = new Proxy(fx.store, {
      get: (target, property) => {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'compareAndSet') return value.bind(target);
        return async (key: string, expected: unknown, next: unknown) => {
          if (!refuse || key !== `approval:${request.id}`) return target.compareAndSet(key, expected, next);
          refuse = false;
          await resolvedElsewhere(fx, request.id);
          return false;
        };
      },
    }) as Store;
    const { engine } = await fx.another({ store });
    await engine.tick();
    expect((await fx.engine.get(request.id))?.state).toBe('failed');
    const repo = partsOf(engine).core.repo;
    expect(await repo.findIdByReference(made?.trx_ref ?? '')).toBeUndefined();
    expect(await repo.findIdByReference(made?.id ?? '')).toBeUndefined();
    expect(fx.sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
    await engine.stop();
  },
);

/** A person's resolution of the request as failed, as another replica writes it (no lock taken here). */
async function resolvedElsewhere(fx: EngineFixture, id: string): Promise<void> {
  const repo = partsOf(fx.engine).core.repo;
  const read = await repo.get(id);
  if (!read) throw new Error(`no ${id}`);
  const step = {
    at: new Date().toISOString(),
    state: 'failed' as const,
    action: 'failed',
    note: 'checked by hand',
  };
  await repo.saveIf(read, { ...read, state: 'failed', history: [...read.history, step] }, false);
}

test('indexes a reference whose holder let it go between the refused write and the read of who holds it', async ({
  defer,
}) => {
  const inner = await createStore('memory://');
  defer(() => inner.close());
  // AR-B takes each entry just before this request writes it, and, having lost the race for its other
  // key, removes it right after this request's write was refused.
  const raced = new Set<string>();
  const store = new Proxy(inner, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'setIfAbsent') return value.bind(target);
      return async (key: string, id: unknown) => {
        if (id !== 'AR-A' || raced.has(key)) return target.setIfAbsent(key, id);
        raced.add(key);
        await target.setIfAbsent(key, 'AR-B');
        const won = await target.setIfAbsent(key, id);
        await target.compareAndDelete(key, 'AR-B');
        return won;
      };
    },
  }) as Store;
  const repo = new ApprovalRepository(store, 'sandbox');
  expect(await repo.indexOutcome(answered('AR-A', 'REF-9', 'TX-9'))).toBeUndefined();
  expect(await repo.findIdByReference('REF-9')).toBe('AR-A');
  expect(await repo.findIdByReference('TX-9')).toBe('AR-A');
  expect(await repo.indexReference('REF-8', 'AR-A')).toBeUndefined();
  expect(await repo.findIdByReference('REF-8')).toBe('AR-A');
});
