// Deliveries are sent once: the reconciler posts what no webhook announced, once, and stays quiet about
// what the webhooks did announce. The sandbox's own deliveries flow end to end into the channel.
import { describe, expect, vi } from 'vitest';
import type { Priority } from '../../src/cngn/api.js';
import type { createCngnClient } from '../../src/cngn/client.js';
import { keyId } from '../../src/cngn/credentials.js';
import type { Transaction } from '../../src/cngn/schemas.js';
import { Money } from '../../src/format/money.js';
import { silentLogger } from '../../src/log.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { createStore, type LockOptions, type Store } from '../../src/store/index.js';
import { clientFor } from '../support/cngn-client.js';
import { inMemoryDir } from '../support/fixtures.js';
import {
  oneTransactionList,
  postsMentioning,
  SECRET,
  waitUntil,
  webhookBody,
} from '../support/webhook-rig.js';
import { webhooksTest } from '../support/webhooks.js';

/**
 * A store that holds the first read of a final-state record until a second party reads one too, or
 * asks for a lock the first one holds: the two never pass each other by chance, so a race shows every
 * time and a shared lock shows as the second party waiting.
 */
function meetingStore(inner: Store): Store {
  let release: (() => void) | undefined;
  let met = false;
  const held = new Set<string>();
  const meet = () => {
    met = true;
    release?.();
  };
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'get') {
        return async (key: string) => {
          if (!met && key.startsWith('webhooks:final:')) {
            if (release) meet();
            else await new Promise<void>((resolve) => (release = resolve));
          }
          return target.get(key);
        };
      }
      if (property === 'withLock') {
        return (name: string, fn: () => Promise<unknown>, options?: LockOptions) => {
          if (!met && release && held.has(name)) meet();
          return target.withLock(
            name,
            async () => {
              held.add(name);
              try {
                return await fn();
              } finally {
                held.delete(name);
              }
            },
            options,
          );
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function sandboxClient(sb: Sandbox) {
  return (await clientFor(sb, { environment: 'sandbox' })).client;
}

/**
 * `newSandbox(options)`: a sandbox signing with the rig's secret, stopped after the test; `setUp`: one
 * and a rig reading its transactions, delivering its webhooks to the rig when told to.
 */
const test = webhooksTest
  .extend('newSandbox', async ({ defer }) => async (options: SandboxOptions = {}): Promise<Sandbox> => {
    const sandbox = await startSandbox({ webhookSecret: SECRET, settleDelayMs: 60_000, ...options });
    defer(() => sandbox.stop());
    return sandbox;
  })
  .extend('setUp', async ({ newSandbox, startRig }) => async (options: { webhooks: boolean }) => {
    const sandbox = await newSandbox();
    const client = await sandboxClient(sandbox);
    const rig = await startRig({ transactions: client });
    if (options.webhooks) sandbox.setWebhookUrl(rig.url);
    return { sandbox, client, rig };
  });

async function payNewDeposit(sandbox: Sandbox, client: ReturnType<typeof createCngnClient>, naira: string) {
  const account = await client.createTemporaryAccount({
    amount: Money.parse(naira),
    customer: { email: 'ops@example.com', name: 'Ops' },
  });
  await sandbox.payTemporaryAccount(account.reference);
  const page = await client.getTransactions({ page: 1, limit: 10 });
  const tx = page.data.find((t) => t.trx_type === 'fiat_buy' && t.status === 'completed');
  if (!tx) throw new Error('the paid deposit is not in the list');
  return tx;
}

describe('reconciler', () => {
  test('posts a deposit whose webhook never arrived, once, and none of the history before the first start', async ({
    setUp,
  }) => {
    const { sandbox: sb, client, rig: r } = await setUp({ webhooks: false });
    const tx = await payNewDeposit(sb, client, '25000');
    expect(sb.webhookDeliveries).toHaveLength(0);
    const reconciler = r.webhooks.reconciler!;
    expect((await reconciler.runOnce()).queued).toBe(1);
    expect((await reconciler.runOnce()).queued).toBe(0);
    const post = await r.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(tx.trx_ref));
    expect(post.body.text).toContain('Deposit credited: ₦25,000.00 (seen by reconciliation)');
    expect(JSON.stringify(post.body.blocks)).toContain('no webhook arrived');
    // A marker after the runs proves nothing else was queued (seeded history is older than the first start).
    await r.send(webhookBody('deposit.completed', { trx_ref: 'REF-MARKER' }));
    await r.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes('REF-MARKER'));
    expect(r.fake.callsTo('chat.postMessage')).toHaveLength(2);
    expect(postsMentioning(r.fake, tx.trx_ref)).toHaveLength(1);
  });

  test('stays quiet about what the webhooks announced: a paid deposit flows from the sandbox into the channel', async ({
    setUp,
  }) => {
    const { sandbox: sb, client, rig: r } = await setUp({ webhooks: true });
    const tx = await payNewDeposit(sb, client, '1250000.5');
    expect(sb.webhookDeliveries.map((d) => [d.event, d.status])).toEqual([
      ['deposit.received', 200],
      ['deposit.completed', 200],
    ]);
    const received = await r.fake.waitFor('chat.postMessage', (c) =>
      String(c.body.text).includes('Deposit received'),
    );
    const credited = await r.fake.waitFor('chat.postMessage', (c) =>
      String(c.body.text).includes('Deposit credited'),
    );
    expect(received.body.text).toContain('₦1,250,000.50');
    expect(credited.body.channel).toBe('CALERTS');
    expect(r.fake.calls.indexOf(received)).toBeLessThan(r.fake.calls.indexOf(credited));
    expect(JSON.stringify(credited.body)).toContain(tx.trx_ref);
    expect((await r.webhooks.reconciler!.runOnce()).queued).toBe(0);
  });

  test('threads a late webhook under the reconciliation message instead of posting it twice', async ({
    setUp,
  }) => {
    const { sandbox: sb, client, rig: r } = await setUp({ webhooks: false });
    const { trx_ref } = await sb.simulateCryptoDeposit({ amount: '900', network: 'base' });
    expect((await r.webhooks.reconciler!.runOnce()).queued).toBe(1);
    const first = await r.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(trx_ref));
    const tx = await client.getTransaction(trx_ref);
    await r.send(
      webhookBody('deposit.completed', {
        transactionId: tx.id,
        trx_ref,
        trx_type: 'crypto_deposit',
        network: 'base',
      }),
    );
    const reply = await r.fake.waitFor('chat.postMessage', (c) => c.body.thread_ts !== undefined);
    // FakeSlack numbers its answers; the reconciliation message was the first one.
    expect(r.fake.calls.indexOf(first)).toBe(0);
    expect(String(reply.body.thread_ts)).toMatch(/\.000001$/);
    expect(reply.body.text).toContain('On-chain deposit credited');
    expect(postsMentioning(r.fake, trx_ref).filter((c) => c.body.thread_ts === undefined)).toHaveLength(1);
  });

  test('threads a late webhook that names the transaction only by its id', async ({ setUp }) => {
    const { sandbox: sb, client, rig: r } = await setUp({ webhooks: false });
    const { trx_ref } = await sb.simulateCryptoDeposit({ amount: '950', network: 'base' });
    expect((await r.webhooks.reconciler!.runOnce()).queued).toBe(1);
    await r.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(trx_ref));
    const tx = await client.getTransaction(trx_ref);
    const body = webhookBody('deposit.completed', { transactionId: tx.id, trx_type: 'crypto_deposit' });
    delete (body.data as Record<string, unknown>).trx_ref;
    expect((await r.send(body)).status).toBe(200);
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const posts = postsMentioning(r.fake, `${tx.id}`);
    expect(posts.map((c) => c.body.thread_ts === undefined)).toEqual([true, false]);
  });

  test('posts once when a webhook naming only the id and the reconciler meet at the same moment', async ({
    newSandbox,
    startRig,
    defer,
  }) => {
    const sandbox = await newSandbox();
    const client = await sandboxClient(sandbox);
    const store = meetingStore(await createStore('memory://', { prefix: `meet-${Math.random()}` }));
    defer(() => store.close());
    const rig = await startRig({ transactions: client, store });
    const { trx_ref } = await sandbox.simulateCryptoDeposit({ amount: '975', network: 'base' });
    const tx = await client.getTransaction(trx_ref);
    const body = webhookBody('deposit.completed', { transactionId: tx.id, trx_type: 'crypto_deposit' });
    delete (body.data as Record<string, unknown>).trx_ref;
    const [reply] = await Promise.all([rig.send(body), rig.webhooks.reconciler!.runOnce()]);
    expect(reply.status).toBe(200);
    const r = rig;
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    const standalone = r.fake
      .callsTo('chat.postMessage')
      .filter((c) => JSON.stringify(c.body).includes(`${tx.id}`) && c.body.thread_ts === undefined);
    expect(standalone).toHaveLength(1);
  });

  test('remembers across a restart what it already posted', async ({ setUp, startRig, defer }) => {
    const { rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = inMemoryDir(); // the restart closes the file: no commit needs a disk's sync
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const storeUrl = `sqlite://${join(dir, 'store.sqlite')}`;
    const { sandbox: sb, client, rig: memoryRig } = await setUp({ webhooks: false });
    await memoryRig.stop();
    const first = await startRig({ transactions: client, storeUrl });
    const { trx_ref } = await sb.simulateCryptoDeposit({ amount: '700', network: 'bsc' });
    expect((await first.webhooks.reconciler!.runOnce()).queued).toBe(1);
    await first.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(trx_ref));
    await first.stop();
    const second = await startRig({ transactions: client, storeUrl });
    const later = await sb.simulateCryptoDeposit({ amount: '800', network: 'bsc' });
    expect((await second.webhooks.reconciler!.runOnce()).queued).toBe(1);
    await second.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(later.trx_ref));
    expect(postsMentioning(second.fake, trx_ref)).toHaveLength(0);
  });

  test('never posts a transaction again once the record that it was posted has expired', async ({
    setUp,
  }) => {
    const { sandbox: sb, rig: r } = await setUp({ webhooks: false });
    const { trx_ref } = await sb.simulateCryptoDeposit({ amount: '600', network: 'base' });
    const reconciler = r.webhooks.reconciler!;
    expect((await reconciler.runOnce()).queued).toBe(1);
    await r.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(trx_ref));
    await waitUntil(async () => (await r.webhooks.outbox.pendingCount()) === 0);
    // 31 days on: the 30-day dedupe records are gone, the transaction is still in the list.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 31 * 86_400_000);
      expect((await reconciler.runOnce()).queued).toBe(0);
      expect((await reconciler.runOnce()).queued).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(await r.webhooks.outbox.pendingCount()).toBe(0);
    expect(postsMentioning(r.fake, trx_ref)).toHaveLength(1);
  });

  test('judges what is new by the bot’s clock, not the machine’s', async ({ startRig }) => {
    let clock = Date.parse('2026-01-10T08:00:00.000Z');
    const at = new Date(clock + 30 * 60_000).toISOString();
    const tx: Transaction = {
      id: 'tx-on-the-bots-clock',
      trx_ref: 'REF-BOTS-CLOCK',
      trx_type: 'fiat_buy',
      status: 'completed',
      amount: '4200.00',
      createdAt: at,
      updatedAt: at,
    };
    const transactions = oneTransactionList(tx);
    const rig = await startRig({ transactions, now: () => clock });
    clock += 3_600_000;
    expect((await rig.webhooks.reconciler?.runOnce())?.queued).toBe(1);
    const post = await rig.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes('REF-BOTS-CLOCK'),
    );
    expect(post.body.text).toContain('(seen by reconciliation)');
  });

  test('reads back past page 1 for a missed deposit that later ones pushed down', async ({ setUp }) => {
    const { sandbox: sb, rig: r } = await setUp({ webhooks: false });
    const missed = await sb.simulateCryptoDeposit({ amount: '777', network: 'bsc' });
    sb.setWebhookUrl(r.url);
    for (let i = 0; i < 55; i++) await sb.simulateCryptoDeposit({ amount: `${100 + i}`, network: 'base' });
    expect(sb.webhookDeliveries.filter((d) => d.status === 200)).toHaveLength(55);
    expect((await r.webhooks.reconciler!.runOnce()).queued).toBe(1);
    const post = await r.fake.waitFor('chat.postMessage', (c) =>
      JSON.stringify(c.body).includes(missed.trx_ref),
    );
    expect(post.body.text).toContain('(seen by reconciliation)');
    expect((await r.webhooks.reconciler!.runOnce()).queued).toBe(0);
  });

  test('stops a walk when the budget is refused and resumes it where it stopped, even after a restart', async ({
    setUp,
  }) => {
    const { sandbox: sb, client, rig: r } = await setUp({ webhooks: false });
    const missed = await sb.simulateCryptoDeposit({ amount: '888', network: 'bsc' });
    sb.setWebhookUrl(r.url);
    for (let i = 0; i < 55; i++) await sb.simulateCryptoDeposit({ amount: `${200 + i}`, network: 'base' });
    const { RateBudgetError } = await import('../../src/cngn/errors.js');
    const { Reconciler } = await import('../../src/webhooks/index.js');
    const asked: number[] = [];
    let refuse = true;
    const source = {
      getTransactions: async (options: { page?: number; limit?: number; priority?: Priority }) => {
        asked.push(options.page ?? 1);
        expect(options.priority).toBe('background');
        if (refuse && (options.page ?? 1) > 1) throw new RateBudgetError(30);
        return client.getTransactions(options);
      },
    };
    const make = () =>
      new Reconciler({
        source,
        pipeline: r.webhooks.pipeline,
        store: r.store,
        environment: 'sandbox',
        graceMs: 0,
      });
    expect(await make().runOnce()).toEqual({ queued: 0, skipped: 'rate-budget' });
    expect(asked).toEqual([1, 2]);
    refuse = false;
    // A new reconciler on the same store (a restart) carries on at page 2.
    expect(await make().runOnce()).toEqual({ queued: 1 });
    expect(asked[2]).toBe(2);
    await r.fake.waitFor('chat.postMessage', (c) => JSON.stringify(c.body).includes(missed.trx_ref));
  });

  test('starts afresh after a switch from sandbox to live credentials on the same store file', async ({
    newSandbox,
    startRig,
    defer,
  }) => {
    const { rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { RateBudgetError } = await import('../../src/cngn/errors.js');
    const dir = inMemoryDir(); // the restart closes the file: no commit needs a disk's sync
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const storeUrl = `sqlite://${join(dir, 'store.sqlite')}`;
    // The sandbox run leaves its start mark and a walk cut short at page 2 in the store.
    const sb = await newSandbox();
    const sbClient = await sandboxClient(sb);
    const sbSource = {
      getTransactions: async (options: { page?: number; limit?: number; priority?: Priority }) => {
        if ((options.page ?? 1) > 1) throw new RateBudgetError(30);
        return sbClient.getTransactions(options);
      },
    };
    let rig = await startRig({ transactions: sbSource, storeUrl, keyId: keyId(sb.apiKey) });
    sb.setWebhookUrl(rig.url);
    for (let i = 0; i < 55; i++) await sb.simulateCryptoDeposit({ amount: `${300 + i}`, network: 'base' });
    expect((await rig.webhooks.reconciler!.runOnce()).skipped).toBe('rate-budget');
    await rig.stop();

    // Live credentials: another service and key; a deposit from before this bot's first live start.
    const live = await newSandbox({ apiKey: 'cngn_live_switch' });
    const { client: liveClient } = await clientFor(live);
    expect(liveClient.environment).toBe('live');
    const earlier = await live.simulateCryptoDeposit({ amount: '450', network: 'bsc' });
    const asked: number[] = [];
    const liveSource = {
      getTransactions: async (options: { page?: number; limit?: number; priority?: Priority }) => {
        asked.push(options.page ?? 1);
        return liveClient.getTransactions(options);
      },
    };
    rig = await startRig({
      transactions: liveSource,
      storeUrl,
      environment: 'live',
      keyId: keyId(live.apiKey),
    });
    expect((await rig.webhooks.reconciler!.runOnce()).queued).toBe(0);
    expect((await rig.webhooks.reconciler!.runOnce()).queued).toBe(0);
    expect(asked).toEqual([1, 1]);
    expect(postsMentioning(rig.fake, earlier.trx_ref)).toHaveLength(0);
  });

  test('skips a run when the background budget is spent, and says so', async ({ setUp }) => {
    const { rig: r } = await setUp({ webhooks: false });
    const { RateBudgetError } = await import('../../src/cngn/errors.js');
    const { Reconciler } = await import('../../src/webhooks/index.js');
    const reconciler = new Reconciler({
      source: {
        getTransactions: async () => {
          throw new RateBudgetError(30);
        },
      },
      pipeline: r.webhooks.pipeline,
      store: r.store,
      environment: 'sandbox',
    });
    expect(await reconciler.runOnce()).toEqual({ queued: 0, skipped: 'rate-budget' });
  });

  test('logs a run its store cannot serve and tries again at the next interval, leaving nothing unhandled', async ({
    setUp,
    defer,
  }) => {
    const { rig: r } = await setUp({ webhooks: false });
    const { Reconciler } = await import('../../src/webhooks/index.js');
    const { StoreUnavailableError } = await import('../../src/store/index.js');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    defer(() => process.off('unhandledRejection', onUnhandled));
    let down = false;
    const warnings: string[] = [];
    const log = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    const store = new Proxy(r.store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (down) return Promise.reject(new StoreUnavailableError('the store is away'));
          return value.apply(target, args);
        };
      },
    });
    const reconciler = new Reconciler({
      source: { getTransactions: async () => ({ data: [], hasNextPage: false }) as never },
      pipeline: r.webhooks.pipeline,
      store,
      environment: 'sandbox',
      intervalMs: 10,
      log,
    });
    await reconciler.start();
    defer(() => reconciler.stop());
    down = true; // the store goes away under a running bot (or is closed as it stops)
    await waitUntil(async () => warnings.length >= 2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings[0]).toContain('reconciliation');
    expect(unhandled).toEqual([]);
  });
});
