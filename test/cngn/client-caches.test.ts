// Caches spend the request budget once: banks for hours, networks for minutes, the balance for
// seconds (with the time it was read), the whitelist and transaction pages for callers that accept
// an age; shared by clients on one store, separate per environment.
import { test as base, describe, expect } from 'vitest';
import { Money } from '../../src/format/money.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { clientFor } from '../support/cngn-client.js';

/**
 * One sandbox for the file (starting one is the cost), and for each test a store of its own with a
 * pair of clients on it (`client` and `other`): each test starts with empty caches, and counts the
 * requests the sandbox saw from where they stood when it began.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('sandbox', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 600_000 });
    onCleanup(() => sandbox.stop());
    return sandbox;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('store', async ({}, { onCleanup }) => {
    const store = await createStore('memory://', { prefix: 'client-caches' });
    onCleanup(() => store.close());
    return store;
  })
  .extend('clients', async ({ sandbox, store }, { onCleanup }) => {
    const { client } = await clientFor(sandbox, { store });
    const { client: other } = await clientFor(sandbox, { store });
    onCleanup(async () => {
      await client.close();
      await other.close();
    });
    return { client, other };
  })
  .extend('client', async ({ clients }) => clients.client)
  .extend('other', async ({ clients }) => clients.other);

describe('caches', () => {
  test('asks for banks once, even for concurrent callers and a second client on the store', async ({
    sandbox,
    client,
    other,
  }) => {
    const before = sandbox.count('GET', '/v1/api/banks');
    const [first, second] = await Promise.all([client.getBanks(), client.getBanks()]);
    expect(second).toEqual(first);
    expect(await other.getBanks()).toEqual(first);
    expect(sandbox.count('GET', '/v1/api/banks')).toBe(before + 1);
  });

  test('keeps networks per flag, and resolves names from the cached list', async ({
    sandbox,
    client,
    other,
  }) => {
    const before = sandbox.count('GET', '/v1/api/networks');
    await client.getNetworks();
    await client.resolveNetwork('bsc');
    await other.resolveNetwork('Polygon');
    expect(sandbox.count('GET', '/v1/api/networks')).toBe(before + 1);
    await client.getNetworks({ includeBlockchain: true });
    await client.getNetworks({ includeBlockchain: true });
    expect(sandbox.count('GET', '/v1/api/networks')).toBe(before + 2);
  });

  test('keeps the balance for seconds with the time it was read, and forgets it after money moves', async ({
    sandbox,
    client,
    other,
  }) => {
    const before = sandbox.count('GET', '/v1/api/balance');
    const first = await client.getBalanceWithTime();
    const again = await other.getBalanceWithTime();
    expect(again.asOf.getTime()).toBe(first.asOf.getTime());
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(before + 1);

    const bsc = await client.resolveNetwork('bsc');
    await client.withdraw({
      amount: Money.parse('100'),
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      networkId: bsc?.id ?? '',
    });
    const after = await client.getBalanceWithTime();
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(before + 2);
    expect(after.entries[0]?.balance).toBe(Money.parse(sandbox.balance()).toString());
    expect(after.entries[0]?.balance).not.toBe(first.entries[0]?.balance);
  });

  test('reads past the cache when asked for fresh figures', async ({ sandbox, client }) => {
    const before = sandbox.count('GET', '/v1/api/balance');
    await client.getBalance({ fresh: true });
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(before + 1);
  });

  test('serves the whitelist and the transaction list from the cache only to callers that accept an age', async ({
    sandbox,
    client,
    other,
  }) => {
    const count = () => sandbox.count('GET', '/v1/api/whitelisted');
    const before = count();
    await client.getWhitelisted({ maxAgeMs: 60_000 });
    await other.getWhitelisted({ maxAgeMs: 60_000 });
    expect(count()).toBe(before + 1);
    await client.getWhitelisted();
    expect(count()).toBe(before + 2);

    const pages = () => sandbox.count('GET', '/v1/api/transactions');
    const listed = pages();
    await client.getTransactions({ page: 1, limit: 50, maxAgeMs: 60_000 });
    await client.getTransactions({ page: 1, limit: 50, maxAgeMs: 60_000 });
    await client.getTransactions({ page: 2, limit: 50, maxAgeMs: 60_000 });
    expect(pages()).toBe(listed + 2);
  });

  test('forgets the cached whitelist once an addition was asked for', async ({ sandbox, client }) => {
    const count = () => sandbox.count('GET', '/v1/api/whitelisted');
    await client.getWhitelisted({ maxAgeMs: 60_000 });
    const before = count();
    const base = await client.resolveNetwork('base');
    await client.addWhitelist({
      networkId: base?.id ?? '',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
    });
    const listed = await client.getWhitelisted({ maxAgeMs: 60_000 });
    expect(count()).toBe(before + 1);
    expect(listed.map((w) => w.publicKey)).toContain('0x52908400098527886E0F7030069857D2E4169EE7');
  });

  test('does not share entries between environments', async ({ sandbox, store }) => {
    const { client: marked } = await clientFor(sandbox, { store, environment: 'sandbox' });
    try {
      const before = sandbox.count('GET', '/v1/api/banks');
      await marked.getBanks();
      expect(sandbox.count('GET', '/v1/api/banks')).toBe(before + 1);
    } finally {
      await marked.close();
    }
  });

  test('expires entries after their time', async ({ sandbox }) => {
    const { client: quick } = await clientFor(sandbox, {
      store: await createStore('memory://', { prefix: 'client-caches-quick' }),
      cacheTtlMs: { banks: 1 },
    });
    try {
      const before = sandbox.count('GET', '/v1/api/banks');
      await quick.getBanks();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await quick.getBanks();
      expect(sandbox.count('GET', '/v1/api/banks')).toBe(before + 2);
    } finally {
      await quick.close();
    }
  });

  test('lets callers that joined a read under way go on one at a time, each when told to', async ({
    sandbox,
  }) => {
    // The bot resumes each on a turn of its own, so answers one slow read releases do not run at once.
    const release: Array<() => void> = [];
    const { client: joined } = await clientFor(sandbox, {
      store: await createStore('memory://', { prefix: 'client-caches-joined' }),
      resumeJoined: () => new Promise<void>((resolve) => release.push(resolve)),
    });
    try {
      const before = sandbox.count('GET', '/v1/api/banks');
      const settled: string[] = [];
      const reads = ['loader', 'second', 'third'].map((name) =>
        joined.getBanks().then(() => settled.push(name)),
      );
      // Both that joined wait to be told; the one that read goes on.
      await expect.poll(() => release.length).toBe(2);
      await expect.poll(() => settled).toEqual(['loader']);
      release[1]?.();
      await expect.poll(() => settled).toEqual(['loader', 'third']);
      release[0]?.();
      await Promise.all(reads);
      expect(settled).toEqual(['loader', 'third', 'second']);
      expect(sandbox.count('GET', '/v1/api/banks')).toBe(before + 1);
    } finally {
      await joined.close();
    }
  });
});
