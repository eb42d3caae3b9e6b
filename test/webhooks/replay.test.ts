// A signed delivery recorded on the way can be sent again with its signature intact (the service signs
// the body only, with no replay header): once the records that dedupe it have expired, its signed time
// is what tells it apart. And a dead letter re-posted long after keeps the environment it was written in.
import { describe, expect } from 'vitest';
import type { WebhookEvent } from '../../src/cngn/schemas.js';
import type { Store } from '../../src/store/index.js';
import { createStore } from '../../src/store/index.js';
import type { DeadLetter, IntakeResult } from '../../src/webhooks/index.js';
import { dedupeKey, outboxIdFor } from '../../src/webhooks/keys.js';
import { FakeSlack } from '../support/fake-slack.js';
import {
  postsMentioning,
  type Rig,
  type RigOptions,
  waitUntil,
  webhookBody,
} from '../support/webhook-rig.js';
import { webhooksTest } from '../support/webhooks.js';

/**
 * webhooksTest, and for the dead-letter tests a rig's store and fake Slack that outlive a rig: `store`,
 * a memory store of the test's own, and `fake`, a fake Slack; both stopped after the test.
 */
const test = webhooksTest
  .extend('store', async ({ defer }) => {
    const store = await createStore('memory://', { prefix: `wh-letters-${Math.random()}` });
    defer(() => store.close());
    return store;
  })
  .extend('fake', async ({ defer }) => {
    const fake = await FakeSlack.start();
    defer(() => fake.stop());
    return fake;
  });

const DAY_MS = 86_400_000;

/** A subscriber (approvals, the recent alerts) that counts what it was told of. */
function counting(): { seen: string[]; subscriber: (event: WebhookEvent) => Promise<void> } {
  const seen: string[] = [];
  return {
    seen,
    subscriber: async (event) => {
      seen.push(`${event.event} ${event.data.trx_ref}`);
    },
  };
}

/** A rig at `now` whose subscriber counts what it is told, and the intake's result of each delivery. */
async function watchedRig(startRig: (options?: RigOptions) => Promise<Rig>, now: number) {
  const told = counting();
  const results: IntakeResult[] = [];
  const rig = await startRig({
    now: () => now,
    subscribers: [told.subscriber],
    onIntake: (result) => results.push(result),
  });
  return { rig, told, results };
}

/**
 * The one dead letter `rig` wrote, once it is there; the rig is stopped (its store and fake Slack kept)
 * and the letter's outbox entry deleted, as its shorter retention would have by then.
 */
async function letterOutlivingItsEntry(rig: Rig, store: Store): Promise<DeadLetter | undefined> {
  await waitUntil(async () => (await rig.webhooks.outbox.deadLetters()).length === 1);
  const [letter] = await rig.webhooks.outbox.deadLetters();
  await rig.stop({ keepFake: true, keepStore: true });
  await store.delete(`webhooks:outbox:entry:${letter?.id}`);
  return letter;
}

/** A body signed `ageMs` before `now` (both of its times). */
function signedAgo(now: number, ageMs: number, data: Record<string, unknown>) {
  const at = new Date(now - ageMs).toISOString();
  const body = webhookBody('deposit.completed', { ...data, occurredAt: at });
  return { ...body, timestamp: at };
}

describe('a delivery signed too long ago to be new', () => {
  test('is kept and answered 200, but posted only as a warning for a person: no credit alert, no subscriber', async ({
    startRig,
  }) => {
    const recorded = Date.now();
    const body = webhookBody('deposit.completed', { trx_ref: 'REF-REPLAYED', amount: '2500.00' });
    const first = counting();
    const original = await startRig({ now: () => recorded, subscribers: [first.subscriber] });
    expect((await original.send(body)).status).toBe(200);
    const credited = await original.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-REPLAYED'),
    );
    expect(credited.body.text).toContain('Deposit credited');
    await original.webhooks.pipeline.settled();
    expect(first.seen).toEqual(['deposit.completed REF-REPLAYED']);

    // Day 31: the records that deduped it have expired (a store of its own), the same bytes come again.
    const later = counting();
    const rig = await startRig({ now: () => recorded + 31 * DAY_MS, subscribers: [later.subscriber] });
    const reply = await rig.send(body);
    expect(reply.status).toBe(200);
    expect(reply.body).not.toContain('duplicate');
    const warning = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-REPLAYED'),
    );
    expect(warning.body.text).toContain('Stale or replayed delivery — a person should check');
    expect(warning.body.text).not.toContain('Deposit credited');
    expect(JSON.stringify(warning.body.blocks)).toContain('no request is updated by it');
    expect(JSON.stringify(warning.body.blocks)).toContain('dated longer ago than the bot remembers');
    expect(JSON.stringify(warning.body.blocks)).not.toContain('ahead of the bot');
    // Stored (it is signed): a third copy is a duplicate, and nothing more is posted.
    expect((await rig.send(body)).body).toContain('duplicate');
    const placements = await rig.webhooks.placements(['REF-REPLAYED']);
    expect(placements.map((p) => [p.event, p.state])).toEqual([['deposit.completed', 'posted']]);
    await rig.webhooks.pipeline.settled();
    expect(later.seen).toEqual([]);
    expect(postsMentioning(rig.fake, 'REF-REPLAYED')).toHaveLength(1);
  });

  test('never goes into a digest, however many routine events wait', async ({ startRig, defer }) => {
    const now = Date.now();
    const store = await createStore('memory://', { prefix: `wh-stale-digest-${Math.random()}` });
    defer(() => store.close());
    // All stored first (no deliverer yet), so they wait together, as under load.
    const intake = await startRig({ store, now: () => now, deliver: false });
    const bodies = [
      ...Array.from({ length: 8 }, (_, i) =>
        webhookBody('deposit.completed', { trx_ref: `REF-ROUTINE-${i}` }),
      ),
      signedAgo(now, 40 * DAY_MS, { trx_ref: 'REF-OLD-COPY' }),
    ];
    for (const body of bodies) expect((await intake.send(body)).status).toBe(200);
    await intake.stop({ keepStore: true });
    const rig = await startRig({ store, now: () => now });
    await waitUntil(async () => (await rig.webhooks.outbox.indexes()).pending.length === 0);
    const calls = [...rig.fake.callsTo('chat.postMessage'), ...rig.fake.callsTo('chat.update')];
    const digests = calls.filter((c) => JSON.stringify(c.body).includes('REF-ROUTINE-7'));
    expect(digests.some((c) => JSON.stringify(c.body).includes('REF-ROUTINE-6'))).toBe(true);
    const carrying = calls.filter((c) => JSON.stringify(c.body).includes('REF-OLD-COPY'));
    expect(carrying).toHaveLength(1);
    expect(carrying[0]?.body.text).toContain('Stale or replayed delivery');
    expect(JSON.stringify(carrying[0]?.body)).not.toContain('REF-ROUTINE');
  });

  test('within the retention less a day, with no time at all, or hours ahead (a clock off), is posted as usual', async ({
    startRig,
  }) => {
    const now = Date.now();
    const { rig, told, results } = await watchedRig(startRig, now);
    const untimed = webhookBody('deposit.completed', { trx_ref: 'REF-UNTIMED', occurredAt: undefined });
    delete untimed.timestamp;
    const bodies = [
      signedAgo(now, 28 * DAY_MS, { trx_ref: 'REF-28-DAYS' }),
      untimed,
      signedAgo(now, -4 * 60_000, { trx_ref: 'REF-AHEAD' }),
      // A service clock 2 hours fast: a copy of it would still be stale long before its records expire.
      signedAgo(now, -2 * 3_600_000, { trx_ref: 'REF-2H-AHEAD' }),
    ];
    for (const body of bodies) expect((await rig.send(body)).status).toBe(200);
    for (const ref of ['REF-28-DAYS', 'REF-UNTIMED', 'REF-AHEAD', 'REF-2H-AHEAD']) {
      const post = await rig.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(ref));
      expect(post.body.text).toContain('Deposit credited');
    }
    await rig.webhooks.pipeline.settled();
    expect(told.seen.sort()).toEqual([
      'deposit.completed REF-28-DAYS',
      'deposit.completed REF-2H-AHEAD',
      'deposit.completed REF-AHEAD',
      'deposit.completed REF-UNTIMED',
    ]);
    expect(results).toEqual(['accepted', 'accepted', 'accepted', 'accepted']);
  });

  test('is counted as stale, not accepted, so a run of replays shows on the intake figures', async ({
    startRig,
  }) => {
    const now = Date.now();
    const results: IntakeResult[] = [];
    const rig = await startRig({ now: () => now, onIntake: (result) => results.push(result) });
    const body = signedAgo(now, 40 * DAY_MS, { trx_ref: 'REF-COUNTED-COPY' });
    expect((await rig.send(body)).status).toBe(200);
    expect((await rig.send(body)).status).toBe(200);
    await waitUntil(async () => results.length === 2);
    expect(results).toEqual(['stale', 'duplicate']);
  });
});

describe('a delivery dated further ahead of the bot’s clock than clocks drift', () => {
  test('is posted only for a person to check, settling nothing, so a copy cannot outlive its dedupe records', async ({
    startRig,
  }) => {
    const now = Date.now();
    const { rig, told, results } = await watchedRig(startRig, now);
    // Signed by a service clock two days fast: 31 days on, a copy would look 29 days old.
    expect((await rig.send(signedAgo(now, -2 * DAY_MS, { trx_ref: 'REF-FAST-CLOCK' }))).status).toBe(200);
    const post = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-FAST-CLOCK'),
    );
    expect(post.body.text).toContain('Stale or replayed delivery — a person should check');
    expect(post.body.text).not.toContain('Deposit credited');
    expect(JSON.stringify(post.body.blocks)).toContain('ahead of the bot’s clock');
    // It says what will happen: the transaction list confirms it once the bot's clock gets there.
    expect(JSON.stringify(post.body.blocks)).toContain('seen by reconciliation');
    expect(JSON.stringify(post.body.blocks)).toContain('once the bot’s clock passes the transaction’s time');
    expect(JSON.stringify(post.body.blocks)).not.toContain('dated longer ago');
    await rig.webhooks.pipeline.settled();
    expect(told.seen).toEqual([]);
    expect(results).toEqual(['stale']);
    const placements = await rig.webhooks.placements(['REF-FAST-CLOCK']);
    expect(placements.map((p) => p.stale)).toEqual(['ahead']);
  });
});

describe('a dead letter re-posted after its outbox entry expired', () => {
  const HASH = `0x${'ab'.repeat(32)}`;

  test('shows the environment it was written in, not the current one', async ({ startRig, store, fake }) => {
    fake.on('chat.postMessage', (call) =>
      call.body.channel === 'CALERTS' && JSON.stringify(call.body).includes('REF-OLD-SANDBOX')
        ? { body: { ok: false, error: 'invalid_arguments' } }
        : undefined,
    );
    const sandbox = await startRig({ store, fake, environment: 'sandbox' });
    const body = webhookBody('withdrawal.completed', {
      trx_ref: 'REF-OLD-SANDBOX',
      trx_type: 'withdraw',
      network: 'base',
      base_trx_hash: HASH,
    });
    expect((await sandbox.send(body)).status).toBe(200);
    const letter = await letterOutlivingItsEntry(sandbox, store);

    const live = await startRig({ store, fake, environment: 'live' });
    const result = await live.webhooks.deadLetters?.repost(String(letter?.id), 'CREPOST', 'UOPS');
    expect(result).toMatchObject({ ok: true, channel: 'CREPOST' });
    const reposted = JSON.stringify(
      fake.callsTo('chat.postMessage').find((c) => c.body.channel === 'CREPOST')?.body,
    );
    expect(reposted).toContain('SANDBOX');
    expect(reposted).not.toContain('LIVE');
    expect(reposted).toContain(`https://sepolia.basescan.org/tx/${HASH}`);
    expect(reposted).not.toContain('https://basescan.org/');
    expect(reposted).not.toContain('environment not recorded');
  });

  test('of a possible replay is re-posted as one still, not as the event it names', async ({
    startRig,
    store,
    fake,
  }) => {
    fake.on('chat.postMessage', (call) =>
      call.body.channel === 'CALERTS' ? { body: { ok: false, error: 'invalid_arguments' } } : undefined,
    );
    const now = Date.now();
    const first = await startRig({ store, fake, now: () => now });
    expect((await first.send(signedAgo(now, 40 * DAY_MS, { trx_ref: 'REF-COPY-LETTER' }))).status).toBe(200);
    const letter = await letterOutlivingItsEntry(first, store);

    const rig = await startRig({ store, fake, now: () => now });
    expect(await rig.webhooks.deadLetters?.repost(String(letter?.id), 'CREPOST', 'UOPS')).toMatchObject({
      ok: true,
    });
    const reposted = fake.callsTo('chat.postMessage').find((c) => c.body.channel === 'CREPOST');
    expect(reposted?.body.text).toContain('Stale or replayed delivery — a person should check');
    expect(reposted?.body.text).not.toContain('Deposit credited');
  });

  test('found by reconciliation still says so, whether its origin was recorded or is told by its id', async ({
    startRig,
    store,
    fake,
  }) => {
    fake.on('chat.postMessage', (call) =>
      call.body.channel === 'CALERTS' ? { body: { ok: false, error: 'invalid_arguments' } } : undefined,
    );
    const first = await startRig({ store, fake });
    const found = webhookBody('deposit.completed', { trx_ref: 'REF-FOUND' }) as unknown as WebhookEvent;
    expect(await first.webhooks.pipeline.acceptReconciled(found, 'succeeded')).toBe(true);
    const letter = await letterOutlivingItsEntry(first, store);
    // One written before letters recorded their origin.
    const older = webhookBody('deposit.completed', { trx_ref: 'REF-FOUND-OLDER' }) as unknown as WebhookEvent;
    const { origin: _, ...unrecorded } = letter as DeadLetter;
    await store.appendToList('webhooks:outbox:dead-letters', {
      ...unrecorded,
      id: outboxIdFor('reconciler', dedupeKey(older)),
      event: older,
    });

    const rig = await startRig({ store, fake });
    for (const ref of ['REF-FOUND', 'REF-FOUND-OLDER']) {
      const [open] = ((await rig.webhooks.deadLetters?.open()) ?? []).filter(
        (l) => l.event.data.trx_ref === ref,
      );
      expect(await rig.webhooks.deadLetters?.repost(String(open?.id), 'CREPOST', 'UOPS')).toMatchObject({
        ok: true,
      });
      const reposted = fake
        .callsTo('chat.postMessage')
        .find((c) => c.body.channel === 'CREPOST' && JSON.stringify(c.body).includes(`${ref}\``));
      expect(reposted?.body.text).toContain('(seen by reconciliation)');
    }
  });

  test('written before environments were recorded: shown in the current one, and the re-post says so', async ({
    startRig,
  }) => {
    const rig = await startRig({ environment: 'live' });
    const body = webhookBody('withdrawal.completed', { trx_ref: 'REF-UNRECORDED', trx_type: 'withdraw' });
    const letter: DeadLetter = {
      id: 'f00d-unrecorded',
      channel: 'CALERTS',
      reason: 'invalid_arguments',
      attempts: 1,
      at: new Date().toISOString(),
      event: body as unknown as WebhookEvent,
    };
    await rig.store.appendToList('webhooks:outbox:dead-letters', letter);
    expect(await rig.webhooks.deadLetters?.repost(letter.id, 'CREPOST', 'UOPS')).toMatchObject({ ok: true });
    const reposted = JSON.stringify(
      rig.fake.callsTo('chat.postMessage').find((c) => c.body.channel === 'CREPOST')?.body,
    );
    expect(reposted).toContain('LIVE');
    expect(reposted).toContain('environment not recorded; shown as the current one');
  });
});
