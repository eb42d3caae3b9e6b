// The sandbox answers in shapes the project's service schemas accept, so the real client can be
// tested against it; and webhook bodies match the webhook schemas (plain or sealed data).
import { test as base, describe, expect } from 'vitest';
import type { z } from 'zod';
import {
  balanceEntrySchema,
  bankSchema,
  bridgeCallbackSchema,
  bridgeQuoteSchema,
  bridgeResultSchema,
  dedicatedAccountsSchema,
  networkSchema,
  redeemResultSchema,
  resolvedAccountSchema,
  settlementAccountSchema,
  temporaryAccountSchema,
  transactionPageSchema,
  transactionSchema,
  webhookEventSchema,
  whitelistedAddressSchema,
  withdrawResultSchema,
} from '../../src/cngn/schemas.js';
import { curveSecretFromSeed, openResponseData, parseOpenSshPrivateKey } from '../../src/cngn/wire.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { RawClient } from './raw-client.js';
import { startReceiver } from './receiver.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * One webhook receiver, sandbox (delivering to it) and raw client for the file, and `ids`, the
 * network IDs by short name.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('receiver', { scope: 'file' }, async ({}, { onCleanup }) => {
    const receiver = await startReceiver();
    onCleanup(() => receiver.stop());
    return receiver;
  })
  .extend('sandbox', { scope: 'file' }, async ({ receiver }, { onCleanup }) => {
    const sandbox = await startSandbox({
      rateLimit: false,
      settleDelayMs: 600_000,
      whitelistTimelockMs: 0,
      webhookUrl: receiver.url,
    });
    onCleanup(() => sandbox.stop());
    return sandbox;
  })
  .extend(
    'client',
    { scope: 'file' },
    async ({ sandbox }) =>
      new RawClient(sandbox.baseUrl, sandbox.apiKey, sandbox.encryptionKey, sandbox.privateKey),
  )
  .extend('ids', { scope: 'file' }, async ({ client }) => {
    const networks = await client.get<Array<{ id: string; short_name: string }>>('/v1/api/networks');
    return Object.fromEntries(networks.data.map((n) => [n.short_name, n.id])) as Record<string, string>;
  });

function accepts(schema: z.ZodType, value: unknown) {
  const result = schema.safeParse(value);
  expect(result.error?.issues ?? []).toEqual([]);
  return result.data;
}

describe('sandbox answers fit the service schemas', () => {
  test('reads', async ({ client }) => {
    for (const entry of (await client.get<unknown[]>('/v1/api/balance')).data)
      accepts(balanceEntrySchema, entry);
    for (const n of (await client.get<unknown[]>('/v1/api/networks?includeBlockchain=true')).data) {
      accepts(networkSchema, n);
    }
    for (const bank of (await client.get<unknown[]>('/v1/api/banks')).data) accepts(bankSchema, bank);
    accepts(dedicatedAccountsSchema, (await client.get('/v1/api/virtual-account')).data);
    for (const w of (await client.get<unknown[]>('/v1/api/whitelisted?includeNetwork=true')).data) {
      accepts(whitelistedAddressSchema, w);
    }
    const page = accepts(transactionPageSchema, (await client.get('/v1/api/transactions?limit=50')).data) as {
      data: Array<{ trx_ref: string }>;
    };
    expect(page.data.length).toBeGreaterThan(30);
    accepts(transactionSchema, (await client.get(`/v1/api/transactions/${page.data[0]?.trx_ref}`)).data);
  });

  test('writes, and the webhooks and callback they cause', async ({ receiver, sandbox, client, ids }) => {
    const seen = receiver.received.length; // the file's receiver: what came before is other tests'
    accepts(
      temporaryAccountSchema,
      (await client.post('/v1/api/virtual-account/temporary', { amount: 100, customer: { email: 'a@b.co' } }))
        .data,
    );
    accepts(
      resolvedAccountSchema,
      (await client.post('/v1/api/account/verify', { accountNumber: '0123456789', bankCode: '058' })).data,
    );
    accepts(
      settlementAccountSchema,
      (
        await client.call('PUT', '/v1/api/bank-account', {
          bankName: 'Access Bank',
          bankAccountName: 'ADAORA FOODS LIMITED',
          bankAccountNumber: '0690000031',
        })
      ).data,
    );
    for (const w of (
      await client.post<unknown[]>('/v1/api/whitelist', { networkId: ids.celo, address: ADDRESS })
    ).data) {
      accepts(whitelistedAddressSchema, w);
    }
    accepts(
      withdrawResultSchema,
      (await client.post('/v1/api/withdraw', { amount: 10, address: ADDRESS, networkId: ids.base })).data,
    );
    accepts(
      redeemResultSchema,
      (await client.post('/v1/api/redeemAsset', { amount: 10, bankCode: '058', accountNumber: '9999999999' }))
        .data,
    );
    const route = { originNetworkId: ids.bsc, destinationNetworkId: ids.base, destinationAddress: ADDRESS };
    accepts(bridgeQuoteSchema, (await client.post('/v1/api/bridge-quote', { amount: 5000, ...route })).data);
    accepts(
      bridgeResultSchema,
      (await client.post('/v1/api/bridge', { ...route, callbackUrl: `${receiver.url}/cb` })).data,
    );
    await sandbox.simulateCryptoDeposit({ amount: '10', network: 'polygon' });
    await sandbox.settleAll();

    const received = receiver.received.slice(seen);
    const hooks = received.filter((r) => r.path !== '/cb');
    expect(new Set(hooks.map((h) => h.json.event))).toEqual(
      new Set(['withdrawal.completed', 'transaction.failed', 'bridge.completed', 'deposit.completed']),
    );
    for (const hook of hooks) accepts(webhookEventSchema, hook.json);
    const callback = received.find((r) => r.path === '/cb');
    accepts(bridgeCallbackSchema, callback?.json);
  });

  test('webhook data can arrive sealed to the business key', async ({ receiver, sandbox }) => {
    sandbox.setSealWebhookData(true);
    try {
      const { trx_ref } = await sandbox.simulateCryptoDeposit({ amount: '42.10' });
      const hook = await receiver.waitFor(
        (r) => r.json.event === 'deposit.completed' && typeof r.json.data === 'string',
      );
      const secret = curveSecretFromSeed(parseOpenSshPrivateKey(sandbox.privateKey).seed);
      const data = JSON.parse(openResponseData(hook.json.data as unknown as string, secret));
      expect(data).toMatchObject({ trx_ref, amount: '42.10', trx_type: 'crypto_deposit' });
    } finally {
      sandbox.setSealWebhookData(false);
    }
  });
});
