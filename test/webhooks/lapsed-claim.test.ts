// A deliverer whose claim on an alert lapsed (a long wait on Slack, a paused process) while another
// replica claimed it lets go only of its own claim: releasing, marking delivered, setting aside or
// closing a digest never frees the other's, so no third deliverer can post the same alert again.
import { describe, expect } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createStore, type Store } from '../../src/store/index.js';
import type { AlertSink, SinkAnswer } from '../../src/webhooks/alert-sink.js';
import { DeadLetterDesk } from '../../src/webhooks/dead-letters.js';
import { Deliverer } from '../../src/webhooks/deliverer.js';
import { Outbox } from '../../src/webhooks/outbox.js';
import type { OutboxEntry } from '../../src/webhooks/types.js';
import { STORE_KINDS, storesTest } from '../support/shared-stores.js';

/** storesTest, and `memoryStore`, a memory store of the test's own, closed after it. */
const test = storesTest.extend('memoryStore', async ({ defer }) => {
  const store = await createStore('memory://');
  defer(() => store.close());
  return store;
});

const ID = 'a1b2c3';
const CLAIM = `webhooks:outbox:claim:${ID}`;

async function enqueued(outbox: Outbox): Promise<OutboxEntry> {
  const event = { event: 'deposit.completed', data: { transactionId: 'T-1', trx_ref: 'R-1' } };
  await outbox.enqueue({ id: ID, origin: 'webhook', environment: 'sandbox', event });
  const entry = await outbox.get(ID);
  if (!entry) throw new Error('not enqueued');
  return entry;
}

/** A sink whose posts are recorded, each answered with what `answer` gives once it resolves. */
function recordingSink(answer: () => Promise<SinkAnswer>): AlertSink & { posted: string[] } {
  const posted: string[] = [];
  const post: AlertSink['post'] = async (message) => {
    posted.push(message.channel);
    return answer();
  };
  return { posted, post, update: post };
}

function deliveryOptions(store: Store, sink: AlertSink, leaseMs: number) {
  return {
    outbox: new Outbox(store),
    store,
    sink,
    render: () => ({ text: 'alert', blocks: [] }),
    route: () => 'CALERTS',
    rescanMs: 3_600_000,
    leaseMs,
  };
}

function deliverer(store: Store, sink: AlertSink, options: { leaseMs: number; sleep?: () => Promise<void> }) {
  return new Deliverer({ ...deliveryOptions(store, sink, options.leaseMs), ...options });
}

/** `store`, telling `claimed` whether each try to claim the alert won. */
function watchingClaims(store: Store, claimed: (won: boolean) => void): Store {
  return new Proxy(store, {
    get: (target, property) => {
      if (property !== 'setIfAbsent') {
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (key: string, value: unknown, ttlMs?: number) => {
        const won = await target.setIfAbsent(key, value, ttlMs);
        if (key === CLAIM) claimed(won);
        return won;
      };
    },
  });
}

/** The alert enqueued and moved to the dead letters, and a desk that re-posts it through `post`. */
async function deadLetterDesk(store: Store, post: AlertSink['post']): Promise<DeadLetterDesk> {
  const outbox = new Outbox(store);
  await outbox.moveToDeadLetters(await enqueued(outbox), 'CALERTS', 'invalid_arguments', 1, 'deliverer');
  return new DeadLetterDesk({
    outbox,
    store,
    sink: { post, update: post },
    render: () => ({ text: 'alert', blocks: [] }),
    environment: 'sandbox',
    log: silentLogger,
  });
}

/**
 * A recording sink whose post is held: `arrived` resolves when a post comes in, which then waits for
 * `letGo` and answers `answer`.
 */
function heldSink(answer: SinkAnswer = { ok: true, ts: '1.0' }) {
  const arrived = signal();
  const letGo = signal();
  const sink = recordingSink(async () => {
    arrived.resolve();
    await letGo.promise;
    return answer;
  });
  return { sink, arrived, letGo };
}

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a lapsed claim on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test("is not freed by its former holder's release, delivery or set-aside, nor a digest's", async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`lapsed-claim-${kind.name}`);
      const [former, holder] = [new Outbox(a), new Outbox(b)];
      const entry = await enqueued(former);
      // The former holder's lease ran out and the holder took the entry since.
      expect(await holder.claim(ID, 'holder', 60_000)).toBe(true);
      await former.release(ID, 'former');
      expect(await former.claim(ID, 'third', 60_000)).toBe(false);
      await former.markDelivered(entry, '1.0', 'CALERTS', 'former');
      expect(await former.claim(ID, 'third', 60_000)).toBe(false);
      await former.moveToDeadLetters(entry, 'CALERTS', 'refused', 1, 'former');
      expect(await former.claim(ID, 'third', 60_000)).toBe(false);
      await holder.release(ID, 'holder');
      expect(await former.claim(ID, 'third', 60_000)).toBe(true);

      expect(await holder.claimDigest('d-1', 'holder', 60_000)).toBe(true);
      await former.releaseDigest('d-1', 'former');
      await former.closeDigest('d-1', 'former');
      expect(await former.claimDigest('d-1', 'third', 60_000)).toBe(false);
      await holder.closeDigest('d-1', 'holder');
      expect(await former.claimDigest('d-1', 'third', 60_000)).toBe(true);
    });
  });
}

for (const kind of STORE_KINDS.filter((k) => k.shared)) {
  describe.skipIf(!kind.up)(`deliverers on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('post an alert once when the first one’s lease lapsed during its post and Slack then refused it', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`lapsed-delivery-${kind.name}`);
      await enqueued(new Outbox(a));
      // The first deliverer's post hangs until Slack rate-limits it; its lease runs out meanwhile.
      const {
        sink: firstSink,
        arrived: firstAt,
        letGo: refuse,
      } = heldSink({ ok: false, failure: { kind: 'rate-limited', delayMs: 1_000 } });
      const firstWaits = signal();
      const first = deliverer(a, firstSink, {
        leaseMs: 1,
        sleep: () => {
          firstWaits.resolve();
          return new Promise(() => {});
        },
      });
      await first.start();
      await firstAt.promise;
      await expect.poll(() => a.get(CLAIM), { timeout: 10_000 }).toBeUndefined();
      // A second replica takes the lapsed claim; the first post, still under way, keeps it from posting.
      const secondClaimed = signal();
      const claimingB = watchingClaims(b, (won) => won && secondClaimed.resolve());
      const { sink: secondSink, arrived: secondAt, letGo: accept } = heldSink();
      const second = deliverer(claimingB, secondSink, { leaseMs: 60_000 });
      await second.start();
      await secondClaimed.promise;
      // Slack refuses the first one's post; it lets go of its claim and waits to try again, and the
      // second, holding the claim now, posts it.
      const secondClaim = await b.get(CLAIM);
      expect(secondClaim).toBeDefined();
      refuse.resolve();
      await firstWaits.promise;
      // The first let go of its own claim only: the second's still holds.
      expect(await a.get(CLAIM)).toEqual(secondClaim);
      await secondAt.promise;
      // A third replica looks: the alert is still claimed by the second.
      const claimTried = signal();
      const watched = watchingClaims(a, () => claimTried.resolve());
      const thirdSink = recordingSink(async () => ({ ok: true, ts: '2.0' }));
      const third = deliverer(watched, thirdSink, { leaseMs: 60_000 });
      await third.start();
      await claimTried.promise;
      await third.stop(); // a post that claim allowed is finished first
      accept.resolve();
      await expect.poll(() => new Outbox(a).pendingCount(), { timeout: 10_000 }).toBe(0);
      await Promise.all([first.stop(), second.stop()]);
      expect([firstSink.posted, secondSink.posted, thirdSink.posted]).toEqual([['CALERTS'], ['CALERTS'], []]);
    });
  });
}

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`a post in flight on ${kind.name}`, () => {
    test.override('storeKind', kind.name);

    test('keeps its alert from a second deliverer after its claim lapsed: Slack gets it once', async ({
      replicas,
    }) => {
      const { a, b } = await replicas(`post-in-flight-${kind.name}`);
      await enqueued(new Outbox(a));
      // Slack holds the first deliverer's post; its claim's lease runs out meanwhile.
      const { sink: firstSink, arrived: firstAt, letGo: accept } = heldSink();
      const first = deliverer(a, firstSink, { leaseMs: 1 });
      await first.start();
      await firstAt.promise;
      await expect.poll(() => a.get(CLAIM), { timeout: 10_000 }).toBeUndefined();
      // A second replica takes the lapsed claim while the first post is still under way.
      const claimed = signal();
      const watched = watchingClaims(b, (won) => won && claimed.resolve());
      const secondSink = recordingSink(async () => ({ ok: true, ts: '2.0' }));
      const second = deliverer(watched, secondSink, { leaseMs: 60_000 });
      await second.start();
      await claimed.promise;
      accept.resolve();
      await expect.poll(() => new Outbox(a).pendingCount(), { timeout: 10_000 }).toBe(0);
      await Promise.all([first.stop(), second.stop()]);
      expect([firstSink.posted, secondSink.posted]).toEqual([['CALERTS'], []]);
    });
  });
}

test('a re-post of a dead letter whose claim lapsed and was taken by another leaves that claim taken', async ({
  memoryStore: store,
}) => {
  // Slack answers each channel's re-post once its gate opens (the third's is open).
  const gates = new Map([
    [
      'C-FIRST',
      { at: signal(), open: signal(), answer: { ok: false, failure: { kind: 'permanent', reason: 'x' } } },
    ],
    ['C-SECOND', { at: signal(), open: signal(), answer: { ok: true, ts: '2.0' } }],
  ]);
  const posted: string[] = [];
  const post: AlertSink['post'] = async ({ channel }) => {
    posted.push(channel);
    const gate = gates.get(channel);
    if (!gate) return { ok: true, ts: '3.0' };
    gate.at.resolve();
    await gate.open.promise;
    return gate.answer as SinkAnswer;
  };
  const desk = await deadLetterDesk(store, post);
  const [first, second] = [gates.get('C-FIRST')!, gates.get('C-SECOND')!];
  const firstRepost = desk.repost(ID, 'C-FIRST', 'U-ONE');
  await first.at.promise;
  // The first re-post's lease runs out while Slack keeps it waiting; a second one claims the letter.
  await store.delete(`webhooks:dead-letters:repost-claim:${ID}`);
  const secondRepost = desk.repost(ID, 'C-SECOND', 'U-ONE');
  const claimKey = `webhooks:dead-letters:repost-claim:${ID}`;
  await expect.poll(() => store.get(claimKey), { timeout: 10_000 }).toBeDefined();
  const secondClaim = await store.get(claimKey);
  // Slack refuses the first: it lets go, but the letter is still the second one's, which posts it
  // once the first post is over (the post lock, post-lock.ts).
  first.open.resolve();
  expect((await firstRepost).ok).toBe(false);
  expect(await store.get(claimKey)).toEqual(secondClaim);
  await second.at.promise;
  expect(await desk.repost(ID, 'C-THIRD', 'U-TWO')).toMatchObject({ ok: false, reason: 'busy' });
  second.open.resolve();
  expect(await secondRepost).toMatchObject({ ok: true, channel: 'C-SECOND' });
  expect(posted).toEqual(['C-FIRST', 'C-SECOND']);
});

test('a re-post of a dead letter whose claim lapsed while Slack kept it waiting is not posted twice', async ({
  memoryStore: store,
}) => {
  const firstAt = signal();
  const accept = signal();
  const posted: string[] = [];
  const post: AlertSink['post'] = async ({ channel }) => {
    posted.push(channel);
    if (channel === 'C-FIRST') {
      firstAt.resolve();
      await accept.promise;
    }
    return { ok: true, ts: '1.0' };
  };
  const desk = await deadLetterDesk(store, post);
  const firstRepost = desk.repost(ID, 'C-FIRST', 'U-ONE');
  await firstAt.promise;
  // The first re-post's claim lapses while Slack holds its post; a second one claims the letter.
  const claimKey = `webhooks:dead-letters:repost-claim:${ID}`;
  await store.delete(claimKey);
  const secondRepost = desk.repost(ID, 'C-SECOND', 'U-TWO');
  await expect.poll(() => store.get(claimKey), { timeout: 10_000 }).toBeDefined();
  accept.resolve();
  expect(await firstRepost).toMatchObject({ ok: true, channel: 'C-FIRST' });
  expect(await secondRepost).toMatchObject({ ok: false, reason: 'not-found' });
  expect(posted).toEqual(['C-FIRST']);
});

test('a post lock the store could not take lets the claim go at once: the alert is posted at the next scan', async ({
  memoryStore: store,
}) => {
  await enqueued(new Outbox(store));
  let failures = 0;
  const failingOnce = new Proxy(store, {
    get: (target, property) => {
      if (property !== 'withLock') {
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (name: string, fn: () => Promise<unknown>, options?: object) => {
        if (name.startsWith('webhooks:outbox:post:') && failures++ === 0) {
          return Promise.reject(new Error('store unavailable'));
        }
        return target.withLock(name, fn, options);
      };
    },
  });
  const sink = recordingSink(async () => ({ ok: true, ts: '1.0' }));
  const one = deliverer(failingOnce, sink, { leaseMs: 3_600_000 });
  await one.start();
  await expect.poll(() => failures, { timeout: 10_000 }).toBeGreaterThan(0);
  await expect.poll(() => store.get(CLAIM), { timeout: 10_000 }).toBeUndefined();
  await one.stop();
  const again = deliverer(store, sink, { leaseMs: 3_600_000 });
  await again.start();
  await expect.poll(() => new Outbox(store).pendingCount(), { timeout: 10_000 }).toBe(0);
  await again.stop();
  expect(sink.posted).toEqual(['CALERTS']);
});

test('an entry an open digest carries is not posted on its own after its claim lapsed: Slack gets it once', async ({
  memoryStore: store,
}) => {
  const outbox = new Outbox(store);
  const ids = ['d-1', 'd-2', 'd-3'];
  for (const [i, id] of ids.entries()) {
    const event = { event: 'deposit.completed', data: { transactionId: `T-${i}`, trx_ref: `R-${i}` } };
    await outbox.enqueue({ id, origin: 'webhook', environment: 'sandbox', event });
  }
  // The first deliverer groups them into a digest; Slack holds its placeholder, and the entries'
  // claims lapse meanwhile.
  const { sink: firstSink, arrived: firstAt, letGo: accept } = heldSink();
  const digest = {
    message: () => ({ text: 'digest', blocks: [] }),
    placeholder: () => ({ text: '…', blocks: [] }),
  };
  const first = new Deliverer({
    ...deliveryOptions(store, firstSink, 1),
    digest,
    digestAbove: 1,
  });
  await first.start();
  await firstAt.promise;
  for (const id of ids) {
    await expect.poll(() => store.get(`webhooks:outbox:claim:${id}`), { timeout: 10_000 }).toBeUndefined();
  }
  // A second replica read the open digests before that digest was recorded (Redis answers the sets
  // one after another), so it sees the entries as waiting alone, and takes their lapsed claims.
  const tried = new Set<string>();
  const staleIndexes = new Proxy(store, {
    get: (target, property) => {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'setMembersMany') {
        return async (sets: string[]) =>
          (await target.setMembersMany(sets)).map((members, i) =>
            sets[i] === 'webhooks:outbox:digests:open' ? [] : members,
          );
      }
      if (property === 'withLock') {
        return (name: string, fn: () => Promise<unknown>, options?: object) => {
          tried.add(name);
          return target.withLock(name, fn, options);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const secondSink = recordingSink(async () => ({ ok: true, ts: '2.0' }));
  const second = new Deliverer(deliveryOptions(staleIndexes, secondSink, 60_000));
  await second.start();
  await expect
    .poll(() => ids.every((id) => tried.has(`webhooks:outbox:post:${id}`)), { timeout: 10_000 })
    .toBe(true);
  await second.stop();
  accept.resolve();
  await expect.poll(() => outbox.pendingCount(), { timeout: 10_000 }).toBe(0);
  await first.stop();
  expect(secondSink.posted).toEqual([]);
});
