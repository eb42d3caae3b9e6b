// What the alert digest tests share: a fake Slack, stores (in memory, or a SQLite file a crashing
// process leaves to the next), events accepted through the real intake, a store that dies on demand,
// and what the alerts channel shows of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { webhookEventSchema } from '../../src/cngn/schemas.js';
import { alertDigest } from '../../src/slack/alerts/digest-blocks.js';
import { webhookMessage } from '../../src/slack/alerts/message-blocks.js';
import { slackAlerts } from '../../src/slack/alerts/sink.js';
import { createStore, type Store } from '../../src/store/index.js';
import { createWebhooks, type Webhooks } from '../../src/webhooks/index.js';
import { FakeSlack, type ShownMessage } from '../support/fake-slack.js';
import { waitUntil as pollUntil, webhookBody } from '../support/webhook-rig.js';
import { webhooksTest } from '../support/webhooks.js';

export type Body = ReturnType<typeof webhookBody>;
export const refOf = (body: Body) => String((body.data as { trx_ref: string }).trx_ref);

/**
 * `fakeSlack(options)`, `store` (in memory) and `sqliteUrl()`, each stopped or removed after the test
 * (after the rigs that use them); `accept(store, bodies)` stores the events through the real intake (no
 * deliverer yet), one after another: their order is kept; `crashDuring(trap)` accepts 40 events on a
 * SQLite file, lets a first process die where `trap` freezes its store, and has the next one finish.
 */
export const test = webhooksTest
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
export function refsShown(message: ShownMessage): string[] {
  // Blocks and text: a digest filled in as text alone (Slack refused its blocks) lists them in its text.
  const json = `${JSON.stringify(message.blocks ?? [])}${message.text}`;
  return [...json.matchAll(/Ref `([^`]+)`/g)].map((m) => m[1]!);
}

/** How many shown messages list each reference. */
export function timesShown(fake: FakeSlack): Map<string, number> {
  const times = new Map<string, number>();
  for (const message of fake.messages()) {
    for (const ref of refsShown(message)) times.set(ref, (times.get(ref) ?? 0) + 1);
  }
  return times;
}

export function expectEachShownOnce(fake: FakeSlack, refs: string[]): void {
  const times = timesShown(fake);
  expect(refs.filter((ref) => times.get(ref) !== 1)).toEqual([]);
  expect([...times.keys()].sort()).toEqual([...refs].sort());
}

/** Digest runs wait on a rate-limited Slack: up to 20 s. */
export const waitUntil = (condition: () => Promise<boolean> | boolean) => pollUntil(condition, 20_000);

export const routine = (i: number, data: Record<string, unknown> = {}) =>
  webhookBody('deposit.completed', { trx_ref: `REF-D-${i}`, amount: `${1000 + i}.50`, ...data });
export const failure = (ref: string, data: Record<string, unknown> = {}) =>
  webhookBody('transaction.failed', {
    trx_ref: ref,
    trx_type: 'fiat_redeem',
    reason: 'bank declined',
    ...data,
  });

/** The single-event message exactly as today's builder makes it for this body. */
export function todaysMessage(body: Body) {
  const event = webhookEventSchema.parse(body);
  return webhookMessage({ event, origin: 'webhook', environment: 'sandbox' });
}

export function isDigest(message: ShownMessage): boolean {
  return message.text.includes('Alert digest');
}

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
