// A digest never takes an alert whose lone post is still under way, even once that post's claim
// lapsed (Slack held it past the lease), and a lone post whose lapsed claim a digest took posts
// nothing: either way the alert reaches Slack once.
import { describe, expect } from 'vitest';
import { createStore, StoreUnavailableError } from '../../src/store/index.js';
import type { AlertSink, SinkAnswer } from '../../src/webhooks/alert-sink.js';
import { Deliverer } from '../../src/webhooks/deliverer.js';
import { Outbox } from '../../src/webhooks/outbox.js';
import { whilePosting } from '../../src/webhooks/post-lock.js';
import type { DigestInput } from '../../src/webhooks/types.js';
import { STORE_KINDS, storesTest } from '../support/shared-stores.js';

/** storesTest, and `store`, a memory store of the test's own, closed after it. */
const test = storesTest.extend('store', async ({ defer }) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  return store;
});

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const enqueue = (outbox: Outbox, id: string) =>
  outbox.enqueue({
    id,
    origin: 'webhook',
    environment: 'sandbox',
    event: { event: 'deposit.completed', data: { transactionId: `T-${id}`, trx_ref: `R-${id}` } },
  });

const transactionsOf = (input: DigestInput) => input.alerts.map((a) => String(a.event.data.transactionId));

test('an alert whose lone post outlived its claim is left out of a digest planned meanwhile: Slack gets it once', async ({
  store,
  defer,
}) => {
  const outbox = new Outbox(store);
  await enqueue(outbox, 'a0');
  // The first deliverer posts it alone; Slack holds the post until `accept`.
  const loneAt = signal();
  const accept = signal();
  // Passed or failed, the held post is let go and the deliverers stopped before the store closes.
  const deliverers: Deliverer[] = [];
  defer(async () => {
    accept.resolve();
    await Promise.all(deliverers.map((d) => d.stop()));
  });
  const lonePosts: string[] = [];
  const loneSink: AlertSink = {
    post: async ({ text }) => {
      lonePosts.push(text);
      loneAt.resolve();
      await accept.promise;
      return { ok: true, ts: '1.0' } as SinkAnswer;
    },
    update: async () => ({ ok: true, ts: '1.0' }),
  };
  const common = { outbox, store, render: () => ({ text: 'alert', blocks: [] }), route: () => 'CALERTS' };
  const lone = new Deliverer({ ...common, sink: loneSink, rescanMs: 3_600_000 });
  deliverers.push(lone);
  await lone.start();
  await loneAt.promise;
  // Its claim's lease runs out while Slack holds the post; more routine alerts arrive meanwhile.
  await store.delete('webhooks:outbox:claim:a0');
  const later = ['a1', 'a2', 'a3'];
  for (const id of later) await enqueue(outbox, id);
  // A second replica groups what waits into a digest.
  const inDigests = new Set<string>();
  const digest = {
    message: (input: DigestInput) => {
      for (const tx of transactionsOf(input)) inDigests.add(tx);
      return { text: 'digest', blocks: [] };
    },
    placeholder: () => ({ text: '…', blocks: [] }),
  };
  const quickSink: AlertSink = {
    post: async () => ({ ok: true, ts: '2.0' }),
    update: async () => ({ ok: true, ts: '2.0' }),
  };
  const grouping = new Deliverer({ ...common, sink: quickSink, rescanMs: 3_600_000, digest, digestAbove: 1 });
  deliverers.push(grouping);
  await grouping.start();
  const delivered = async () =>
    (await Promise.all(later.map((id) => outbox.get(id)))).every((e) => e?.deliveredAt !== undefined);
  await expect.poll(delivered, { timeout: 10_000 }).toBe(true);
  accept.resolve();
  await expect.poll(() => outbox.pendingCount(), { timeout: 10_000 }).toBe(0);
  await Promise.all([lone.stop(), grouping.stop()]);
  expect(lonePosts).toHaveLength(1);
  expect([...inDigests].sort()).toEqual(['T-a1', 'T-a2', 'T-a3']);
});

test('a digest whose check of a lone post fails lets go of every alert it claimed', async ({ store }) => {
  const ids = ['b0', 'b1', 'b2'];
  // The store cannot answer whether b1's lone post is under way.
  const failing = new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property !== 'withLock' || typeof value !== 'function') {
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (name: string, ...rest: unknown[]) =>
        name === 'webhooks:outbox:post:b1'
          ? Promise.reject(new StoreUnavailableError('store unavailable'))
          : value.call(target, name, ...rest);
    },
  });
  const outbox = new Outbox(failing);
  for (const id of ids) await enqueue(outbox, id);
  await expect(outbox.claimForDigest(ids, 'digest', 60_000)).rejects.toThrow('store unavailable');
  // Another replica's next scan takes them at once, without waiting out the lease.
  const next = new Outbox(store);
  expect(await Promise.all(ids.map((id) => next.claim(id, 'next', 60_000)))).toEqual([true, true, true]);
});

const CLAIM = 'webhooks:outbox:claim:a0';

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`an alert's lapsed claim on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('is not taken into a digest while its lone post is under way', async ({ replicas }) => {
      const { a, b } = await replicas(`digest-lapsed-claim-${kind.name}`);
      const [lone, grouping] = [new Outbox(a), new Outbox(b)];
      await enqueue(lone, 'a0');
      expect(await lone.claim('a0', 'lone', 60_000)).toBe(true);
      const answer = await whilePosting(a, 'a0', async () => {
        // Slack holds the post past the claim's lease; a digest is planned meanwhile.
        await a.delete(CLAIM);
        return grouping.claimForDigest(['a0'], 'digest', 60_000);
      });
      expect(answer).toEqual([false]);
      // Let go at once: the lone post finishes it.
      expect(await b.get(CLAIM)).toBeUndefined();
    });

    test('is not posted alone once a digest took it before the post began', async ({ replicas }) => {
      const { a, b } = await replicas(`lone-lapsed-claim-${kind.name}`);
      const [lone, grouping] = [new Outbox(a), new Outbox(b)];
      await enqueue(lone, 'a0');
      expect(await lone.claim('a0', 'lone', 60_000)).toBe(true);
      // The lone deliverer stalls past its lease before its post lock; a digest claims the alert.
      await a.delete(CLAIM);
      expect(await grouping.claimForDigest(['a0'], 'digest', 60_000)).toEqual([true]);
      const current = await whilePosting(a, 'a0', () => lone.stillToPostAlone('a0', 'lone'));
      expect(current).toBeUndefined();
      expect(await a.get(CLAIM)).toBe('digest');
    });
  });
}
