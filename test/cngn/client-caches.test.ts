// Caches spend the request budget once: banks for hours, networks for minutes, the balance for
// seconds (with the time it was read), the whitelist and transaction pages for callers that accept
// an age; shared by clients on one store, separate per environment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CngnClient } from '../../src/cngn/client.js';
import { Money } from '../../src/format/money.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import { clientFor } from './client-support.js';

let sandbox: Sandbox;
let store: Store;
let client: CngnClient;
let other: CngnClient;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 600_000 });
  store = await createStore('memory://', { prefix: 'client-caches' });
  ({ client } = await clientFor(sandbox, { store }));
  ({ client: other } = await clientFor(sandbox, { store }));
});
afterAll(async () => {
  await client.close();
  await other.close();
  await sandbox.stop();
});

describe('caches', () => {
  it('asks for banks once, even for concurrent callers and a second client on the store', async () => {
    const [first, second] = await Promise.all([client.getBanks(), client.getBanks()]);
    expect(second).toEqual(first);
    expect(await other.getBanks()).toEqual(first);
    expect(sandbox.count('GET', '/v1/api/banks')).toBe(1);
  });

  it('keeps networks per flag, and resolves names from the cached list', async () => {
    await client.getNetworks();
    await client.resolveNetwork('bsc');
    await other.resolveNetwork('Polygon');
    expect(sandbox.count('GET', '/v1/api/networks')).toBe(1);
    await client.getNetworks({ includeBlockchain: true });
    await client.getNetworks({ includeBlockchain: true });
    expect(sandbox.count('GET', '/v1/api/networks')).toBe(2);
  });

  it('keeps the balance for seconds with the time it was read, and forgets it after money moves', async () => {
    const first = await client.getBalanceWithTime();
    const again = await other.getBalanceWithTime();
    expect(again.asOf.getTime()).toBe(first.asOf.getTime());
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(1);

    const bsc = await client.resolveNetwork('bsc');
    await client.withdraw({
      amount: Money.parse('100'),
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      networkId: bsc?.id ?? '',
    });
    const after = await client.getBalanceWithTime();
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(2);
    expect(after.entries[0]?.balance).toBe(Money.parse(sandbox.balance()).toString());
    expect(after.entries[0]?.balance).not.toBe(first.entries[0]?.balance);
  });

  it('reads past the cache when asked for fresh figures', async () => {
    const before = sandbox.count('GET', '/v1/api/balance');
    await client.getBalance({ fresh: true });
    expect(sandbox.count('GET', '/v1/api/balance')).toBe(before + 1);
  });

  it('serves the whitelist and the transaction list from the cache only to callers that accept an age', async () => {
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

  it('forgets the cached whitelist once an addition was asked for', async () => {
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

  it('does not share entries between environments', async () => {
    const { client: marked } = await clientFor(sandbox, { store, environment: 'sandbox' });
    try {
      const before = sandbox.count('GET', '/v1/api/banks');
      await marked.getBanks();
      expect(sandbox.count('GET', '/v1/api/banks')).toBe(before + 1);
    } finally {
      await marked.close();
    }
  });

  it('expires entries after their time', async () => {
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
});
