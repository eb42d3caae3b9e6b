import { describe, expect } from 'vitest';
import { alertDigest } from '../../src/slack/alerts/digest-blocks.js';
import { SkippingClock } from '../support/clock.js';
import { webhookBody } from '../support/webhook-rig.js';
import {
  type Body,
  expectEachShownOnce,
  failure,
  isDigest,
  refOf,
  refsShown,
  routine,
  test,
  timesShown,
  todaysMessage,
  waitUntil,
} from './digest-support.js';

describe('alert digests', () => {
  test('posts one waiting event exactly as today, with no digest', async ({ fakeSlack, startRig }) => {
    const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 10 } });
    const r = await startRig({ fake });
    const body = routine(1, { trx_ref: 'REF-ALONE' });
    await r.send(body);
    const posted = await fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-ALONE'),
    );
    const today = todaysMessage(body);
    expect(posted.body.text).toBe(today.text);
    expect(posted.body.blocks).toEqual(today.blocks);
    expect(fake.callsTo('chat.update')).toHaveLength(0);
  });

  test('never hides a failure: failures behind 100 routine events go first, each alone as today', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const routineBodies = Array.from({ length: 100 }, (_, i) => routine(i));
    const failures = [
      failure('REF-FAIL-1'),
      failure('REF-FAIL-2', { trx_type: 'withdraw', reason: 'reverted' }),
    ];
    await accept({ store }, [...routineBodies, ...failures]);
    const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 10 } });
    // Twenty to a digest: the routine events fill five digests behind the failures.
    const r = await startRig({ fake, store, digestMaxEvents: 20 });
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const posts = fake.callsTo('chat.postMessage').filter((c) => !c.error);
    // The first two messages are the failures, alone, in the order they came, exactly as today.
    for (const [i, body] of failures.entries()) {
      const today = todaysMessage(body);
      expect(posts[i]?.body.text).toBe(today.text);
      expect(posts[i]?.body.blocks).toEqual(today.blocks);
    }
    const digests = fake.messages().filter(isDigest);
    expect(digests.length).toBeGreaterThanOrEqual(5);
    for (const digest of digests) expect(JSON.stringify(digest.blocks)).not.toContain('REF-FAIL');
    expectEachShownOnce(fake, [...routineBodies, ...failures].map(refOf));
  });

  test('posts alone what a person must look at: a kind it does not know, a failed status under a routine name', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const routineBodies = Array.from({ length: 20 }, (_, i) => routine(i, { trx_ref: `REF-RT-${i}` }));
    const odd = [
      webhookBody('settlement.flagged', { trx_ref: 'REF-ODD-KIND' }),
      webhookBody('deposit.completed', { trx_ref: 'REF-ODD-STATUS', status: 'reversed' }),
    ];
    await accept({ store }, [...routineBodies, ...odd]);
    const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 10 } });
    const r = await startRig({ fake, store });
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const shown = fake.messages();
    expect(shown.slice(0, 2).map(refsShown)).toEqual([['REF-ODD-KIND'], ['REF-ODD-STATUS']]);
    expect(shown.slice(0, 2).map((m) => m.text)).toEqual(odd.map((b) => todaysMessage(b).text));
    expect(shown.slice(2).every(isDigest)).toBe(true);
    expectEachShownOnce(fake, [...routineBodies, ...odd].map(refOf));
  });

  test('posts a failure that arrives during a digest run before the next digest message', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const bodies = Array.from({ length: 60 }, (_, i) => routine(i, { trx_ref: `REF-RUN-${i}` }));
    await accept({ store }, bodies);
    // One message at a time: the second digest's placeholder meets a 429, and the failure arrives
    // while the deliverer waits it out (on a clock that the wait moves on).
    const clock = new SkippingClock();
    const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 1 }, now: clock.now });
    let holding: (() => void) | undefined;
    const held = new Promise<void>((release) => {
      holding = release;
    });
    let firstWait = true;
    const r = await startRig({
      fake,
      store,
      digestMaxEvents: 20,
      sleep: async (ms) => {
        if (firstWait) {
          firstWait = false;
          await held;
        }
        await clock.sleep(ms);
      },
    });
    await waitUntil(() => fake.rateLimited > 0);
    const late = failure('REF-LATE-FAIL');
    await r.send(late);
    holding?.();
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const shown = fake.messages();
    const failureAt = shown.findIndex((m) => refsShown(m).includes('REF-LATE-FAIL'));
    expect(failureAt).toBe(1);
    expect(isDigest(shown[0]!)).toBe(true);
    expect(shown.slice(2).every(isDigest)).toBe(true);
    expectEachShownOnce(fake, [...bodies, late].map(refOf));
  });

  test('keeps order within a kind and adds amounts up exactly', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const deposits = ['0.10', '0.20', '0.10', '1000000.05', '2.5'].map((amount, i) =>
      webhookBody('deposit.completed', { trx_ref: `REF-ORD-D${i}`, amount }),
    );
    const payouts = ['99999999999999.99', '0.01'].map((amount, i) =>
      webhookBody('redemption.completed', {
        trx_ref: `REF-ORD-R${i}`,
        amount,
        trx_type: 'fiat_redeem',
        receiver: '044:0123456789:ADA OKAFOR',
      }),
    );
    // Interleaved on arrival; each kind keeps its own order in the digest.
    const bodies = [deposits[0], payouts[0], deposits[1], deposits[2], payouts[1], deposits[3], deposits[4]];
    await accept({ store }, bodies as Body[]);
    const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 10 } });
    const r = await startRig({ fake, store });
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const [digest] = fake.messages();
    expect(fake.messages()).toHaveLength(1);
    expect(refsShown(digest!)).toEqual([...deposits.map(refOf), ...payouts.map(refOf)]);
    const blocks = JSON.stringify(digest!.blocks);
    expect(blocks).toContain('*5 deposits completed · ₦1,000,002.95*');
    expect(blocks).toContain('*2 redemptions paid out · ₦100,000,000,000,000.00*');
    expect(digest!.text).toBe(
      '[SANDBOX] Alert digest: 5 deposits completed · ₦1,000,002.95 · 2 redemptions paid out · ₦100,000,000,000,000.00',
    );
  });

  test('honours a 429 with Retry-After in the middle of a digest run, and every wait the limiter asks for', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const bodies = Array.from({ length: 150 }, (_, i) => routine(i, { trx_ref: `REF-429-${i}` }));
    await accept({ store }, bodies);
    const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 10 } });
    let placeholders = 0;
    let refusedOnce = false;
    fake.on('chat.postMessage', (call) => {
      if (!String(call.body.text).includes('listing events')) return undefined;
      placeholders += 1;
      if (placeholders !== 3 || refusedOnce) return undefined;
      refusedOnce = true;
      return { status: 429, headers: { 'retry-after': '7' }, body: { ok: false, error: 'ratelimited' } };
    });
    const waits: number[] = [];
    const r = await startRig({ fake, store, digestMaxEvents: 20, sleep: async (ms) => void waits.push(ms) });
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    expect(refusedOnce).toBe(true);
    expect(waits).toEqual([7_000]);
    expect(fake.messages().filter(isDigest)).toHaveLength(8);
    expectEachShownOnce(fake, bodies.map(refOf));
  });

  test('waits out the rate limiter between digest messages for as long as Retry-After says', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const bodies = Array.from({ length: 130 }, (_, i) => routine(i, { trx_ref: `REF-LIM-${i}` }));
    await accept({ store }, bodies);
    // Each wait moves the fake Slack's clock on instead of passing in real time.
    const clock = new SkippingClock();
    const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 10 }, now: clock.now });
    const waits: number[] = [];
    const r = await startRig({
      fake,
      store,
      digestMaxEvents: 10,
      sleep: async (ms) => {
        waits.push(ms);
        await clock.sleep(ms);
      },
    });
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    // 13 messages against a burst of 10: the limiter refused some, and each refusal was waited out.
    expect(fake.rateLimited).toBeGreaterThan(0);
    expect(waits).toHaveLength(fake.rateLimited);
    expect(waits.every((ms) => ms === 1_000)).toBe(true);
    expectEachShownOnce(fake, bodies.map(refOf));
  });

  test('fills a digest in as text when Slack refuses its blocks, every event still listed once', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const bodies = Array.from({ length: 12 }, (_, i) => routine(i, { trx_ref: `REF-TEXT-${i}` }));
    await accept({ store }, bodies);
    const fake = await fakeSlack();
    fake.on('chat.update', (call) =>
      Array.isArray(call.body.blocks) && call.body.blocks.length > 0
        ? { status: 200, body: { ok: false, error: 'invalid_blocks' } }
        : undefined,
    );
    const r = await startRig({ fake, store });
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const [digest] = fake.messages();
    expect(fake.messages()).toHaveLength(1);
    expect(digest?.blocks).toEqual([]);
    expect(digest?.text).toContain('12 deposits completed');
    expectEachShownOnce(fake, bodies.map(refOf));
  });

  test('lists the events plainly when the digest builder fails, and the queue goes on', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const bodies = Array.from({ length: 9 }, (_, i) =>
      routine(i, { trx_ref: i === 0 ? 'REF-<!here>' : `REF-BUG-${i}` }),
    );
    await accept({ store }, bodies);
    const fake = await fakeSlack();
    const r = await startRig({
      fake,
      store,
      renderDigest: {
        placeholder: alertDigest.placeholder,
        message: () => {
          throw new Error('a bug in the digest builder');
        },
      },
    });
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const shown = JSON.stringify(fake.messages().map((m) => m.blocks));
    for (const body of bodies.slice(1)) expect(shown).toContain(refOf(body));
    expect(shown).toContain('REF-&lt;!here&gt;');
    expect(shown).not.toContain('<!here>');
  });

  test('sets aside every event of a digest Slack refuses for good, and says so in its placeholder', async ({
    accept,
    fakeSlack,
    startRig,
    store,
  }) => {
    const bodies = Array.from({ length: 8 }, (_, i) => routine(i, { trx_ref: `REF-DEAD-${i}` }));
    await accept({ store }, bodies);
    const fake = await fakeSlack();
    fake.on('chat.update', (call) =>
      JSON.stringify(call.body).includes('REF-DEAD')
        ? { status: 200, body: { ok: false, error: 'invalid_arguments' } }
        : undefined,
    );
    const r = await startRig({ fake, store });
    await waitUntil(async () => (await r.webhooks.outbox.deadLetters()).length === 8);
    const dead = await r.webhooks.outbox.deadLetters();
    expect(dead.map((d) => d.event.data.trx_ref)).toEqual(bodies.map(refOf));
    expect(dead.every((d) => d.reason === 'invalid_arguments')).toBe(true);
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    // The placeholder is noted after its events have left the pending index (best effort, last).
    await waitUntil(() => fake.messages()[0]?.text.includes('dead-letter') ?? false);
    expect(timesShown(fake).size).toBe(0);
  });
});
