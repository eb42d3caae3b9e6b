// Under load, routine alerts are grouped into digests: failures still go first and alone, order within a
// kind and the totals hold, and a crash at any step of a digest neither repeats nor drops an event.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { alertDigest } from '../../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../../src/slack/alerts/message-blocks.js';
import { slackAlerts } from '../../src/slack/alerts/sink.js';
import { createStore, type Store } from '../../src/store/index.js';
import { createWebhooks, type Webhooks } from '../../src/webhooks/index.js';
import { SkippingClock } from '../support/clock.js';
import { FakeSlack, type ShownMessage } from '../support/fake-slack.js';
import { waitUntil as pollUntil, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest } from '../support/webhooks.js';

type Body = ReturnType<typeof webhookBody>;
const refOf = (body: Body) => String((body.data as { trx_ref: string }).trx_ref);

/**
 * `fakeSlack(options)`, `store` (in memory) and `sqliteUrl()`, each stopped or removed after the test
 * (after the rigs that use them); `accept(store, bodies)` stores the events through the real intake (no
 * deliverer yet), one after another: their order is kept; `crashDuring(trap)` accepts 40 events on a
 * SQLite file, lets a first process die where `trap` freezes its store, and has the next one finish.
 */
const test = webhooksTest
  .extend('fakeSlack', async ({ defer }) => async (options: Parameters<typeof FakeSlack.start>[0] = {}) => {
    const fake = await FakeSlack.start(options);
    defer(() => fake.stop());
    return fake;
  })
  .extend('store', async ({ defer }) => {
    const store = await createStore('memory://', { prefix: `digest-${Math.random()}` });
    defer(() => store.close());
    return store;
  })
  .extend('sqliteUrl', async ({ defer }) => (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-digest-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return `sqlite://${join(dir, 'store.sqlite')}`;
  })
  .extend(
    'accept',
    async ({ fakeSlack, startRig }) =>
      async (store: { storeUrl: string } | { store: Store }, bodies: Body[]): Promise<void> => {
        const fake = await fakeSlack();
        const intake = await startRig({ ...store, fake, deliver: false });
        for (let i = 0; i < bodies.length; i += 25) {
          // In order per batch; batches one after another.
          for (const body of bodies.slice(i, i + 25)) expect((await intake.send(body)).status).toBe(200);
        }
        await intake.stop({ keepFake: true, keepStore: 'store' in store });
      },
  )
  .extend(
    'crashDuring',
    async ({ sqliteUrl, accept, fakeSlack, startRig }) =>
      async (
        trap: (fake: FakeSlack, freeze: () => void) => void,
      ): Promise<{ fake: FakeSlack; refs: string[]; doomed: Webhooks }> => {
        const storeUrl = sqliteUrl();
        const bodies = Array.from({ length: 40 }, (_, i) => routine(i, { trx_ref: `REF-CRASH-${i}` }));
        await accept({ storeUrl }, bodies);
        const fake = await fakeSlack({ rateLimit: { perSecond: 1, burst: 10 } });
        const { store, freeze, dead } = dyingStore(await createStore(storeUrl, { prefix: 'wh' }));
        trap(fake, freeze);
        const doomed = createWebhooks({
          store,
          environment: 'sandbox',
          secret: 'whsec_doomed',
          sink: slackAlerts('xoxb-test', fake.apiUrl),
          render: (input) => webhookMessage(input),
          renderDigest: alertDigest,
          alertsChannel: 'CALERTS',
          rescanMs: 200,
          maxBackoffMs: 400,
        });
        await doomed.start();
        // The first process is gone once its store froze; the next one starts on the same file.
        await dead;
        const next = await startRig({ fake, storeUrl });
        await waitUntil(async () => (await next.webhooks.outbox.pendingCount()) === 0);
        return { fake, refs: bodies.map(refOf), doomed };
      },
  );

/** References each message the channel shows now lists (the single layout names its reference once). */
function refsShown(message: ShownMessage): string[] {
  // Blocks and text: a digest filled in as text alone (Slack refused its blocks) lists them in its text.
  const json = `${JSON.stringify(message.blocks ?? [])}${message.text}`;
  return [...json.matchAll(/Ref `([^`]+)`/g)].map((m) => m[1]!);
}

/** How many shown messages list each reference. */
function timesShown(fake: FakeSlack): Map<string, number> {
  const times = new Map<string, number>();
  for (const message of fake.messages()) {
    for (const ref of refsShown(message)) times.set(ref, (times.get(ref) ?? 0) + 1);
  }
  return times;
}

function expectEachShownOnce(fake: FakeSlack, refs: string[]): void {
  const times = timesShown(fake);
  expect(refs.filter((ref) => times.get(ref) !== 1)).toEqual([]);
  expect([...times.keys()].sort()).toEqual([...refs].sort());
}

/** Digest runs wait on a rate-limited Slack: up to 20 s. */
const waitUntil = (condition: () => Promise<boolean> | boolean) => pollUntil(condition, 20_000);

const routine = (i: number, data: Record<string, unknown> = {}) =>
  webhookBody('deposit.completed', { trx_ref: `REF-D-${i}`, amount: `${1000 + i}.50`, ...data });
const failure = (ref: string, data: Record<string, unknown> = {}) =>
  webhookBody('transaction.failed', {
    trx_ref: ref,
    trx_type: 'fiat_redeem',
    reason: 'bank declined',
    ...data,
  });

/** The single-event message exactly as today's builder makes it for this body. */
function todaysMessage(body: Body) {
  const event = webhookEventSchema.parse(body);
  return webhookMessage({ event, origin: 'webhook', environment: 'sandbox' });
}

function isDigest(message: ShownMessage): boolean {
  return message.text.includes('Alert digest');
}

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

/**
 * A store that "dies" on demand: after freeze(), no call on it ever settles (as if the process had been
 * killed there), and the file underneath is closed so the next process can open it.
 */
function dyingStore(real: Store): { store: Store; freeze(): void; dead: Promise<void> } {
  let frozen = false;
  let died: () => void = () => {};
  const dead = new Promise<void>((resolve) => {
    died = resolve;
  });
  const never = new Promise<never>(() => {});
  const store = new Proxy(real, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (frozen) return never;
        return (value as (...a: unknown[]) => Promise<unknown>)
          .apply(target, args)
          .then((result) => (frozen ? never : result));
      };
    },
  });
  return {
    store,
    dead,
    freeze() {
      if (frozen) return;
      frozen = true;
      // Closed on the next turn: the call that froze it may still be reading.
      setImmediate(() => void real.close().then(died, died));
    },
  };
}

describe('a digest across a crash', () => {
  test('crash before posting: the next process posts the digest once', async ({ crashDuring }) => {
    let dead = false;
    const { fake, refs } = await crashDuring((fake, freeze) => {
      fake.on('chat.postMessage', () => {
        if (dead) return undefined;
        dead = true;
        freeze();
        // The process died before its request reached Slack: nothing is posted.
        return { status: 500, body: { ok: false, error: 'internal_error' } };
      });
    });
    expect(dead).toBe(true);
    expect(fake.messages()).toHaveLength(1);
    expectEachShownOnce(fake, refs);
  });

  test('crash after the placeholder was posted, before its ts was recorded: an empty placeholder, no event twice', async ({
    crashDuring,
  }) => {
    let dead = false;
    const { fake, refs } = await crashDuring((fake, freeze) => {
      fake.on('chat.postMessage', () => {
        if (!dead) {
          dead = true;
          freeze();
        }
        return undefined;
      });
    });
    const [orphan, digest] = fake.messages();
    expect(fake.messages()).toHaveLength(2);
    expect(orphan?.updates).toBe(0);
    expect(refsShown(orphan!)).toEqual([]);
    expect(refsShown(digest!)).toHaveLength(40);
    expectEachShownOnce(fake, refs);
  });

  test('crash after Slack took the events, before they were recorded as delivered: filled again in place, never twice', async ({
    crashDuring,
  }) => {
    let dead = false;
    const { fake, refs } = await crashDuring((fake, freeze) => {
      fake.on('chat.update', () => {
        if (!dead) {
          dead = true;
          freeze();
        }
        return undefined;
      });
    });
    expect(fake.messages()).toHaveLength(1);
    // Filled by the process that died and again, identically, by the next one.
    expect(fake.messages()[0]?.updates).toBe(2);
    expect(fake.callsTo('chat.update').map((c) => c.body.ts)).toEqual([
      fake.messages()[0]?.ts,
      fake.messages()[0]?.ts,
    ]);
    expectEachShownOnce(fake, refs);
  });
});
