import { test as base, describe, expect } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { RawClient } from './raw-client.js';

/** One sandbox and raw client for the file. */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('sandbox', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({ rateLimit: false });
    onCleanup(() => sandbox.stop());
    return sandbox;
  })
  .extend(
    'client',
    { scope: 'file' },
    async ({ sandbox }) =>
      new RawClient(sandbox.baseUrl, sandbox.apiKey, sandbox.encryptionKey, sandbox.privateKey),
  );

interface NetworkView {
  id: string;
  name: string;
  short_name: string;
  isDisabled: boolean;
  blockchain: null | { id: string; name: string; created_at: string; updated_at: string };
}

describe('sandbox reads', () => {
  test('answers the balance sealed to the business key', async ({ client }) => {
    const answer = await client.get('/v1/api/balance');
    expect(answer.httpStatus).toBe(200);
    expect(answer.envelope.status).toBe(200);
    expect(typeof answer.envelope.data).toBe('string');
    expect(answer.data).toEqual([
      { asset_type: 'credit_alphanum4', asset_code: 'CNGN', balance: '1250000.00' },
    ]);
  });

  test('lists EVM networks, one disabled, blockchain metadata only when asked', async ({ client }) => {
    const plain = await client.get<NetworkView[]>('/v1/api/networks');
    expect(plain.data.length).toBeGreaterThanOrEqual(5);
    expect(plain.data.map((n) => n.short_name)).toEqual(
      expect.arrayContaining(['base', 'bsc', 'polygon', 'eth', 'celo']),
    );
    expect(plain.data.filter((n) => n.isDisabled)).toHaveLength(1);
    expect(plain.data.every((n) => n.blockchain === null)).toBe(true);
    const rich = await client.get<NetworkView[]>('/v1/api/networks?includeBlockchain=true');
    for (const network of rich.data) {
      expect(network.blockchain).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    }
  });

  test('gives live keys different, stable network IDs', async ({ client }) => {
    const live = await startSandbox({ apiKey: 'cngn_live_example', rateLimit: false });
    const again = await startSandbox({ apiKey: 'cngn_live_other', rateLimit: false });
    try {
      const liveClient = new RawClient(live.baseUrl, live.apiKey, live.encryptionKey, live.privateKey);
      const againClient = new RawClient(again.baseUrl, again.apiKey, again.encryptionKey, again.privateKey);
      const testIds = (await client.get<NetworkView[]>('/v1/api/networks')).data.map((n) => n.id);
      const liveIds = (await liveClient.get<NetworkView[]>('/v1/api/networks')).data.map((n) => n.id);
      const liveAgain = (await againClient.get<NetworkView[]>('/v1/api/networks')).data.map((n) => n.id);
      expect(liveIds).toEqual(liveAgain);
      expect(liveIds.some((id) => testIds.includes(id))).toBe(false);
    } finally {
      await live.stop();
      await again.stop();
    }
  });

  test('lists 20+ Nigerian banks with their real codes', async ({ client }) => {
    const { data } = await client.get<Array<Record<string, string>>>('/v1/api/banks');
    expect(data.length).toBeGreaterThanOrEqual(20);
    const byName = Object.fromEntries(data.map((b) => [b.name, b]));
    expect(byName['First Bank of Nigeria']).toEqual({
      name: 'First Bank of Nigeria',
      slug: 'firstbank',
      code: '011',
      country: 'NG',
      nibss_bank_code: '000016',
    });
    const codes = data.map((b) => b.code);
    for (const code of ['044', '058', '057', '033', '070', '214', '232', '035', '50211', '999992', '50515']) {
      expect(codes).toContain(code);
    }
  });

  test('pages the transaction history newest first', async ({ client }) => {
    const first = await client.get<{
      data: Array<{ createdAt: string; trx_ref: string }>;
      pagination: unknown;
    }>('/v1/api/transactions');
    expect(first.data.data).toHaveLength(10);
    expect(first.data.pagination).toEqual({
      count: expect.any(Number),
      pages: expect.any(Number),
      isLastPage: false,
      nextPage: 2,
      previousPage: null,
    });
    const dates = first.data.data.map((t) => t.createdAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    const last = await client.get<{ data: unknown[]; pagination: { isLastPage: boolean; pages: number } }>(
      '/v1/api/transactions?page=4&limit=10',
    );
    expect(last.data.pagination.pages).toBe(4);
    expect(last.data.pagination.isLastPage).toBe(true);
    const all = await client.get<{ data: Array<{ trx_type: string; status: string }> }>(
      '/v1/api/transactions?limit=100',
    );
    const types = new Set(all.data.data.map((t) => t.trx_type));
    expect([...types].sort()).toEqual(['crypto_deposit', 'fiat_buy', 'fiat_redeem', 'swap', 'withdraw']);
    expect(new Set(all.data.data.map((t) => t.status))).toEqual(new Set(['completed', 'failed']));
  });

  test('finds one transaction by reference on both lookup routes', async ({ client }) => {
    const page = await client.get<{ data: Array<{ trx_ref: string }> }>('/v1/api/transactions?limit=3');
    const reference = page.data.data[2]?.trx_ref ?? '';
    const one = await client.get<{ trx_ref: string }>(`/v1/api/transactions/${reference}`);
    expect(one.data.trx_ref).toBe(reference);
    const verified = await client.get<{ trx_ref: string }>(`/v1/api/withdraw/verify/${reference}`);
    expect(verified.data.trx_ref).toBe(reference);
  });

  test('returns dedicated virtual accounts as an array and whitelisted addresses with networks', async ({
    client,
  }) => {
    const accounts = await client.get<unknown[]>('/v1/api/virtual-account');
    expect(accounts.data).toEqual([
      {
        accountNumber: expect.stringMatching(/^\d{10}$/),
        accountName: expect.any(String),
        bankName: expect.any(String),
        bankCode: expect.any(String),
      },
    ]);
    const bare = await client.get<Array<Record<string, unknown>>>('/v1/api/whitelisted');
    expect(bare.data.length).toBeGreaterThanOrEqual(2);
    expect(bare.data[0]).not.toHaveProperty('network');
    const rich = await client.get<
      Array<{ network: { id: string; name: string; short_name: string }; networkId: string }>
    >('/v1/api/whitelisted?includeNetwork=true');
    for (const entry of rich.data) expect(entry.network.id).toBe(entry.networkId);
  });

  test('resolves an account to the name a test gave it, and others to their generated names', async ({
    sandbox,
    client,
  }) => {
    const other = await client.post<{ accountName: string }>('/v1/api/account/verify', {
      accountNumber: '0123456780',
      bankCode: '058',
    });
    sandbox.setAccountName('0123456781', 'ADA <!channel> & SONS');
    const named = await client.post<{ accountName: string }>('/v1/api/account/verify', {
      accountNumber: '0123456781',
      bankCode: '058',
    });
    expect(named.data.accountName).toBe('ADA <!channel> & SONS');
    const again = await client.post<{ accountName: string }>('/v1/api/account/verify', {
      accountNumber: '0123456780',
      bankCode: '058',
    });
    expect(again.data.accountName).toBe(other.data.accountName);
  });
});
