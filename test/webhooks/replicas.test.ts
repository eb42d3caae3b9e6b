// Two replicas on one shared store (Redis, PostgreSQL): each event is stored once and posted once,
// whichever replica the delivery reached and whichever deliverer got there first.
import { describe, expect } from 'vitest';
import { FakeSlack } from '../support/fake-slack.js';
import { STORE_KINDS, storesTest } from '../support/shared-stores.js';
import { type Rig, webhookBody } from '../support/webhook-rig.js';
import { startRigFixture } from '../support/webhooks.js';

/**
 * The stores' fixtures (`replicas(name)`: two handles on one prefix, cleared and closed after the
 * test), `startRig`, and `fake`, a fake Slack the rigs share, stopped after them.
 */
const test = storesTest.extend('startRig', startRigFixture).extend('fake', async ({ defer }) => {
  const fake = await FakeSlack.start();
  defer(() => fake.stop());
  return fake;
});

for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
  describe.skipIf(!up)(`webhook replicas on ${name}`, () => {
    test.override('storeKind', name);

    test('posts every event once across two replicas, duplicates sent to both included', async ({
      replicas,
      startRig,
      fake,
    }) => {
      const { a: storeA, b: storeB } = await replicas('webhook-replicas');
      const stores = [storeA, storeB];
      const rigs: Rig[] = [];
      // One message per event: this is about claims between replicas (digests: the test below).
      // Claims, not deadlines: on a busy test machine a burst's turns at a shared store's locks can pass
      // the product's 1.5 s (a 503, left to the reconciler; intake-store-down.test.ts covers that).
      for (const store of stores)
        rigs.push(await startRig({ fake, store, digests: false, storeTimeoutMs: 8_000 }));
      const [a, b] = rigs as [Rig, Rig];
      const bodies = Array.from({ length: 30 }, (_, i) =>
        webhookBody(i % 3 ? 'deposit.completed' : 'deposit.received', {
          trx_ref: `REF-RED-${Math.floor(i / 3)}`,
        }),
      );
      // Every delivery reaches both replicas at once (a retrying proxy, a replay): stored once anyway.
      // References in parallel; one reference's events one after another, as the service sends them.
      const groups = Array.from({ length: 10 }, (_, ref) => bodies.slice(ref * 3, ref * 3 + 3));
      const replies = (
        await Promise.all(
          groups.map(async (group) => {
            const out = [];
            for (const body of group) out.push(...(await Promise.all([a.send(body), b.send(body)])));
            return out;
          }),
        )
      ).flat();
      expect(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body}`)).toEqual([]);
      expect(replies.filter((r) => r.body.includes('duplicate'))).toHaveLength(30);
      for (const body of bodies) {
        const id = String((body.data as { transactionId: string }).transactionId);
        await fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(id));
      }
      while ((await a.webhooks.outbox.pendingCount()) > 0) await new Promise((r) => setTimeout(r, 20));
      const posts = fake.callsTo('chat.postMessage');
      expect(posts).toHaveLength(30);
      // Per reference, received before completed.
      for (let ref = 0; ref < 10; ref++) {
        const texts = posts
          .filter((c) => JSON.stringify(c.body).includes(`REF-RED-${ref}\``))
          .map((c) => String(c.body.text).split(':')[0]);
        expect(texts[0]).toBe('[SANDBOX] Deposit received');
      }
    });

    // Waits on the outbox being empty, not on a time: a minute is a cap for a machine whose every core
    // is busy (a quiet one takes a few seconds).
    test('shows every event once when two replicas group a burst into digests', {
      timeout: 120_000,
    }, async ({ replicas, startRig, defer }) => {
      const { a: storeA, b: storeB } = await replicas('webhook-replicas-digest');
      const pair = [storeA, storeB];
      const own = await FakeSlack.start({ rateLimit: { perSecond: 1, burst: 10 } });
      defer(() => own.stop());
      // Claims, not the product's 1.5 s store deadline: a 503 there is the reconciler's (see above).
      // Twenty events to a digest: the burst makes a few digests for the replicas to contend over.
      const [a, b] = [
        await startRig({ fake: own, store: pair[0]!, storeTimeoutMs: 8_000, digestMaxEvents: 20 }),
        await startRig({ fake: own, store: pair[1]!, storeTimeoutMs: 8_000, digestMaxEvents: 20 }),
      ];
      const bodies = Array.from({ length: 60 }, (_, i) =>
        webhookBody('deposit.completed', { trx_ref: `REF-RED-DG-${i}` }),
      );
      const replies = await Promise.all(bodies.map((body, i) => (i % 2 ? a : b).send(body)));
      expect(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body}`)).toEqual([]);
      const deadline = Date.now() + 90_000;
      while ((await a.webhooks.outbox.pendingCount()) > 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const times = new Map<string, number>();
      for (const message of own.messages()) {
        for (const m of JSON.stringify(message.blocks).matchAll(/Ref `(REF-RED-DG-\d+)`/g))
          times.set(m[1]!, (times.get(m[1]!) ?? 0) + 1);
      }
      expect(
        bodies.filter((body) => times.get(String((body.data as { trx_ref: string }).trx_ref)) !== 1),
      ).toEqual([]);
      expect(own.messages().some((m) => m.text.includes('Alert digest'))).toBe(true);
    });

    test('leaves an alert another live replica is posting alone when it starts', async ({
      replicas,
      startRig,
      fake,
    }) => {
      const { a: storeA, b: storeB } = await replicas('webhook-replicas-start');
      const a = await startRig({ fake, store: storeA, deliver: false });
      expect((await a.send(webhookBody('deposit.completed', { trx_ref: 'REF-START-1' }))).status).toBe(200);
      const [id] = await a.webhooks.outbox.pendingIds();
      if (!id) throw new Error('nothing pending');
      // A has claimed the entry and is posting it; B starts meanwhile.
      expect(await a.webhooks.outbox.claim(id, 'replica-a', 60_000)).toBe(true);
      await startRig({ fake, store: storeB });
      expect(await storeB.get(`webhooks:outbox:claim:${id}`)).toBe('replica-a');
    });
  });
}
