// A claim whose holder was about to call the service never lapses into a next generation: whatever a
// stale copy of the request says later (a replica whose lock ran out mid-write wrote it back as
// approved), nobody can claim that round again and send it a second time. Only a hand-back of a claim
// that was certainly not sent (endClaim) opens the next generation.
import { expect, it } from 'vitest';
import { ApprovalRepository } from '../../src/approvals/repository.js';
import { createStore } from '../../src/store/index.js';

const LEASE_MS = 60_000;

it('never claims past a generation marked as sending, even once its lease ran out', async () => {
  const store = await createStore('memory://');
  const repo = new ApprovalRepository(store, 'sandbox');
  const t0 = new Date('2026-11-23T10:00:00Z');
  const later = new Date(t0.getTime() + 10 * LEASE_MS);
  try {
    expect(await repo.claim('AR-1', 0, 'replica-b', t0, LEASE_MS)).toBe(0);
    await repo.markClaimSending('AR-1', 0, 0, 'replica-b', new Date(t0.getTime() + LEASE_MS));
    // Long after the lease: an unmarked claim would be followed by generation 1; this one is not.
    expect(await repo.claim('AR-1', 0, 'replica-a', later, LEASE_MS)).toBeUndefined();
    expect(await repo.claim('AR-1', 0, 'replica-c', later, LEASE_MS)).toBeUndefined();
  } finally {
    await store.close();
  }
});

it('still lets the next generation claim an unmarked claim that ran out, or one handed back', async () => {
  const store = await createStore('memory://');
  const repo = new ApprovalRepository(store, 'sandbox');
  const t0 = new Date('2026-11-23T10:00:00Z');
  const later = new Date(t0.getTime() + 2 * LEASE_MS);
  try {
    expect(await repo.claim('AR-2', 0, 'replica-a', t0, LEASE_MS)).toBe(0);
    expect(await repo.claim('AR-2', 0, 'replica-b', later, LEASE_MS)).toBe(1);
    await repo.markClaimSending('AR-2', 0, 1, 'replica-b', new Date(later.getTime() + LEASE_MS));
    await repo.endClaim('AR-2', 0, 1, later); // handed back: it was certainly not sent
    expect(await repo.claim('AR-2', 0, 'replica-c', later, LEASE_MS)).toBe(2);
  } finally {
    await store.close();
  }
});

it('ends only the generation a hand-back names, and claims the next one past it', async () => {
  const store = await createStore('memory://');
  const repo = new ApprovalRepository(store, 'sandbox');
  const t0 = new Date('2026-11-23T10:00:00Z');
  const later = new Date(t0.getTime() + 10 * LEASE_MS);
  try {
    expect(await repo.claim('AR-3', 0, 'replica-a', t0, LEASE_MS)).toBe(0);
    await repo.markClaimSending('AR-3', 0, 0, 'replica-a', new Date(t0.getTime() + LEASE_MS));
    // A hand-back of another generation, or none, leaves the marked claim in the way.
    expect(await repo.claim('AR-3', 0, 'replica-b', later, LEASE_MS, 1)).toBeUndefined();
    expect(await repo.lapsedSendingClaim('AR-3', 0, later)).toBe(0);
    // The request names generation 0 as handed back: its holder can no longer send, so it is ended.
    expect(await repo.lapsedSendingClaim('AR-3', 0, later, 0)).toBeUndefined();
    expect(await repo.claim('AR-3', 0, 'replica-b', later, LEASE_MS, 0)).toBe(1);
    expect(await repo.markClaimSending('AR-3', 0, 0, 'replica-a', later)).toBe(false);
    expect(await repo.claim('AR-3', 0, 'replica-c', later, LEASE_MS)).toBeUndefined();
  } finally {
    await store.close();
  }
});

it('never ends a handed-back claim whose holder marked it calling after the hand-back was read', async () => {
  const store = await createStore('memory://');
  const holder = new ApprovalRepository(store, 'sandbox');
  const t0 = new Date('2026-11-23T10:00:00Z');
  const key = 'approval-exec:AR-4:0';
  let reads = 0;
  // The other replica's store: between its read of the named claim and its end of it, the holder's
  // calling mark lands (the holder's request was marked sending: its call goes out).
  const racing = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== 'get' || typeof value !== 'function') return value;
      return async (k: string) => {
        if (k === key && ++reads === 2) {
          expect(await holder.markClaimCalling('AR-4', 0, 0, 'replica-a')).toBe(true);
        }
        return value.call(target, k);
      };
    },
  });
  const other = new ApprovalRepository(racing, 'sandbox');
  try {
    expect(await holder.claim('AR-4', 0, 'replica-a', t0, LEASE_MS)).toBe(0);
    await holder.markClaimSending('AR-4', 0, 0, 'replica-a', new Date(t0.getTime() + LEASE_MS));
    // A hand-back naming generation 0, written by someone with write access to the store.
    expect(await other.claim('AR-4', 0, 'replica-b', t0, LEASE_MS, 0)).toBeUndefined();
    expect(reads).toBeGreaterThanOrEqual(2);
    expect(await store.get(key)).toMatchObject({ owner: 'replica-a', calling: true });
    expect(await store.get('approval-exec:AR-4:0:1')).toBeUndefined();
  } finally {
    await store.close();
  }
});
