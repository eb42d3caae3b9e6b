// The shared request budget against a sandbox that enforces the service's limit (and blocks the key
// for a minute on the first request too many): several clients sharing a store never trip it.
import { describe, expect } from 'vitest';
import type { CngnClient } from '../../src/cngn/client.js';
import { RateBudgetError } from '../../src/cngn/errors.js';
import { Money } from '../../src/format/money.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { VirtualClock } from '../support/clock.js';
import { clientFor } from '../support/cngn-client.js';
import { testPrefix } from '../support/redis.js';
import { storesTest as it, STORE_KINDS } from '../support/shared-stores.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
// The sandbox blocks the key for 60 s like the real service. The sandbox and the clients of a test
// share a virtual clock: windows pass without real waiting, and the calls a test makes together reach
// the sandbox at one instant.
const SERVICE_LIMIT = { limit: 20, windowMs: 2_000, blockMs: 60_000 };
const CLIENT_LIMIT = { limit: 20, windowSeconds: 2 };
// A small margin: what keeps the key safe is that a slot frees a window after its request *ended*;
// the margin only absorbs clock differences between hosts, and here there is one clock.
const limiterOn = (clock: VirtualClock) => ({ marginMs: 100, now: clock.now, sleep: clock.sleep });

interface Budgeted {
  sandbox: Sandbox;
  clients: CngnClient[];
  clock: VirtualClock;
}

/** Two clients, one on each store given (one store twice: two clients of one replica). */
async function setUp(defer: (cleanup: () => unknown) => void, stores: [Store, Store]): Promise<Budgeted> {
  const clock = new VirtualClock();
  const sandbox = await startSandbox({ rateLimit: SERVICE_LIMIT, settleDelayMs: 600_000, now: clock.now });
  defer(() => sandbox.stop());
  const clients: CngnClient[] = [];
  for (const store of stores) {
    const limiter = limiterOn(clock);
    const { client } = await clientFor(sandbox, { store, rateLimit: CLIENT_LIMIT, limiter });
    defer(() => client.close());
    clients.push(client);
  }
  return { sandbox, clients, clock };
}

function tripped(sandbox: Sandbox): number {
  return sandbox.requests.filter((r) => r.status === 429).length;
}

/** 60 calls at once, alternating between the clients: money moves, account checks and reads. */
async function sixtyAtOnce({ sandbox, clients, clock }: Budgeted): Promise<unknown[]> {
  const [first] = clients;
  const networkId = (await first?.resolveNetwork('base'))?.id ?? '';
  const calls = Array.from({ length: 60 }, (_, i) => {
    const client = clients[i % clients.length] as CngnClient;
    switch (i % 3) {
      case 0:
        return clock.track(() =>
          client.withdraw({ amount: Money.parse('1.10'), address: ADDRESS, networkId }),
        );
      case 1:
        return clock.track(() =>
          client.resolveAccount({ accountNumber: '0123456789', bankCode: '011' }, { priority: 'money' }),
        );
      default:
        return clock.track(() => client.getTransactions({ limit: 1, priority: 'money' }));
    }
  });
  const results = await Promise.all(calls);
  expect(tripped(sandbox)).toBe(0);
  return results;
}

describe('the shared request budget', () => {
  it('60 calls through two clients sharing a store all complete without tripping the limit', async ({
    defer,
  }) => {
    const store = await createStore('memory://', { prefix: 'budget-memory' });
    defer(() => store.close());
    const budgeted = await setUp(defer, [store, store]);
    const { sandbox } = budgeted;
    const results = await sixtyAtOnce(budgeted);
    expect(results).toHaveLength(60);
    expect(results.every((r) => r !== undefined)).toBe(true);
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(20);
    expect(sandbox.requests.filter((r) => r.path.startsWith('/v1/api/')).length).toBe(61);
  });

  for (const { name, up } of STORE_KINDS.filter((kind) => kind.shared)) {
    it.skipIf(!up)(`does the same with replicas sharing a ${name} store`, async ({ storeKinds, defer }) => {
      const kind = storeKinds.find((k) => k.name === name);
      if (!kind) throw new Error(`no ${name} store`);
      // Two store connections with one prefix behave like two replicas (cleared and closed after).
      const { a, b, close } = await kind.replicas(testPrefix('client-budget-shared'));
      defer(close);
      const budgeted = await setUp(defer, [a, b]);
      const { sandbox } = budgeted;
      const results = await sixtyAtOnce(budgeted);
      expect(results).toHaveLength(60);
      expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(20);
    });
  }

  it('tells interactive readers "busy" instead of queueing them behind a spent budget', async ({ defer }) => {
    const store = await createStore('memory://', { prefix: 'budget-interactive' });
    defer(() => store.close());
    const { sandbox, clients, clock } = await setUp(defer, [store, store]);
    const settled = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) =>
        clock.track(() =>
          (clients[i % 2] as CngnClient).getTransaction(i % 2 ? 'none-a' : 'none-b').catch((error) => {
            if (error instanceof RateBudgetError) throw error;
            return 'answered'; // "Transaction not found." is an answer
          }),
        ),
      ),
    );
    const answered = settled.filter((s) => s.status === 'fulfilled').length;
    const busy = settled.filter((s) => s.status === 'rejected' && s.reason instanceof RateBudgetError);
    expect(answered + busy.length).toBe(60);
    expect(answered).toBeGreaterThanOrEqual(20);
    expect(busy.length).toBeGreaterThan(0);
    expect(tripped(sandbox)).toBe(0);
  });

  it('keeps a reserve that background work never uses', async ({ defer }) => {
    const store = await createStore('memory://', { prefix: 'budget-background' });
    defer(() => store.close());
    const { sandbox, clients } = await setUp(defer, [store, store]);
    const [client] = clients as [CngnClient];
    const settled = await Promise.allSettled(
      Array.from({ length: 25 }, () => client.getTransactions({ limit: 1, priority: 'background' })),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(16);
    expect(
      settled.filter((s) => s.status === 'rejected' && s.reason instanceof RateBudgetError),
    ).toHaveLength(9);
    const budget = await client.budget();
    expect(budget).toMatchObject({ limit: 20, used: 16, remaining: 4 });
    // The reserve is still there for a person.
    expect((await client.getTransactions({ limit: 1 })).data).toHaveLength(1);
    expect(tripped(sandbox)).toBe(0);
  });
});
