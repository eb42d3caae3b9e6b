// A service reference (or transaction id) is indexed for one request only, set-if-absent, and never
// re-pointed. A request that loses one of its two keys to another request between its check and its
// write leaves neither pointing at itself: a stale entry would hide the transaction from every later
// lookup as another request's, for good.
import { expect } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/index.js';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { createStore, type Store } from '../../src/store/index.js';
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
