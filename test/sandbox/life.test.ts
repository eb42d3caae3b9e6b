import { createHmac, timingSafeEqual } from 'node:crypto';
import { test as baseTest, describe, expect } from 'vitest';
import { Money } from '../../src/format/money.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { RawClient } from './raw-client.js';
import { type Received, startReceiver } from './receiver.js';

/**
 * One webhook receiver, sandbox (delivering to it) and raw client for the file, and `base`, the ID of
 * the Base network.
 */
const test = baseTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('service', { scope: 'file' }, async ({}, { onCleanup }) => {
    const receiver = await startReceiver();
    // A long delay: these tests settle explicitly, so nothing depends on timing.
    const sandbox = await startSandbox({
      rateLimit: false,
      settleDelayMs: 600_000,
      webhookUrl: `${receiver.url}/hooks`,
    });
    onCleanup(async () => {
      await sandbox.stop();
      await receiver.stop();
    });
    const client = new RawClient(sandbox.baseUrl, sandbox.apiKey, sandbox.encryptionKey, sandbox.privateKey);
    const networks = await client.get<Array<{ id: string; short_name: string }>>('/v1/api/networks');
    const base = networks.data.find((n) => n.short_name === 'base')?.id ?? '';
    return { sandbox, client, receiver, base };
  })
  .extend('sandbox', { scope: 'file' }, async ({ service }) => service.sandbox)
  .extend('client', { scope: 'file' }, async ({ service }) => service.client)
  .extend('receiver', { scope: 'file' }, async ({ service }) => service.receiver)
  .extend('base', { scope: 'file' }, async ({ service }) => service.base);

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const DEAD = '0x000000000000000000000000000000000000dEaD';

/** Verify the signature as a receiver would: HMAC-SHA256 of the raw body under the secret. */
function signedCorrectly(delivery: Received, secret: string): boolean {
  const header = String(delivery.headers['x-cngn-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`;
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

async function balance(client: RawClient): Promise<string> {
  const { data } = await client.get<Array<{ balance: string }>>('/v1/api/balance');
  return data[0]?.balance ?? '';
}

const forRef = (event: string, ref: string) => (r: Received) =>
  r.json.event === event && r.json.data?.trx_ref === ref;

describe('withdrawals', () => {
  test('debit at acceptance, pending, then completed with a signed withdrawal.completed', async ({
    sandbox,
    client,
    receiver,
    base,
  }) => {
    const before = await balance(client);
    const answer = await client.post<{ trxRef: string; address: string }>('/v1/api/withdraw', {
      amount: 1500.5,
      address: ADDRESS,
      networkId: base,
    });
    expect(answer.data.address).toBe(ADDRESS);
    expect(await balance(client)).toBe(
      Money.parseDecimal(before).minus(Money.parseDecimal('1500.50')).toString(),
    );
    const pending = await client.get<{ status: string; trx_type: string; amount: string }>(
      `/v1/api/withdraw/verify/${answer.data.trxRef}`,
    );
    expect(pending.data).toMatchObject({ status: 'pending', trx_type: 'withdraw', amount: '1500.50' });

    await sandbox.settleAll();
    const done = await client.get<Record<string, unknown>>(`/v1/api/transactions/${answer.data.trxRef}`);
    expect(done.data).toMatchObject({ status: 'completed', network: 'base', receiver: { address: ADDRESS } });
    expect(done.data.base_trx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.data.explorer_link).toBe(`https://sepolia.basescan.org/tx/${done.data.base_trx_hash}`);

    const hook = await receiver.waitFor(forRef('withdrawal.completed', answer.data.trxRef));
    expect(hook.path).toBe('/hooks');
    expect(signedCorrectly(hook, sandbox.webhookSecret)).toBe(true);
    expect(hook.json.timestamp).toEqual(expect.any(String));
    expect(hook.json.data).toMatchObject({
      transactionId: done.data.id,
      status: 'completed',
      trx_type: 'withdraw',
      amount: '1500.50',
      asset_symbol: 'CNGN',
      receiver: ADDRESS,
      base_trx_hash: done.data.base_trx_hash,
      occurredAt: expect.any(String),
    });
  });

  test('a withdrawal to the failing address fails, returns the token and emits transaction.failed', async ({
    sandbox,
    client,
    receiver,
    base,
  }) => {
    const before = await balance(client);
    const answer = await client.post<{ trxRef: string }>('/v1/api/withdraw', {
      amount: 200,
      address: DEAD,
      networkId: base,
    });
    expect(await balance(client)).not.toBe(before);
    await sandbox.settleAll();
    expect(await balance(client)).toBe(before);
    const hook = await receiver.waitFor(forRef('transaction.failed', answer.data.trxRef));
    expect(hook.json.data).toMatchObject({
      status: 'failed',
      trx_type: 'withdraw',
      reason: expect.any(String),
    });
  });

  test('refuses more than the balance', async ({ client, base }) => {
    const answer = await client.post('/v1/api/withdraw', {
      amount: 99_000_000,
      address: ADDRESS,
      networkId: base,
    });
    expect(answer.envelope).toEqual({ status: 400, message: 'Insufficient balance' });
  });

  test('refuses a disabled network', async ({ client }) => {
    const networks = await client.get<Array<{ id: string; isDisabled: boolean }>>('/v1/api/networks');
    const disabled = networks.data.find((n) => n.isDisabled)?.id;
    const answer = await client.post('/v1/api/withdraw', {
      amount: 10,
      address: ADDRESS,
      networkId: disabled,
    });
    expect(answer.envelope.status).toBe(400);
    expect(answer.envelope.message).toMatch(/^networkId: Network .* is currently disabled$/);
  });

  test('shouldSaveAddress whitelists the destination', async ({ client, base }) => {
    const fresh = '0x1111111111111111111111111111111111111111';
    await client.post('/v1/api/withdraw', {
      amount: 10,
      address: fresh,
      networkId: base,
      shouldSaveAddress: true,
    });
    const list = await client.get<Array<{ publicKey: string; networkId: string }>>('/v1/api/whitelisted');
    expect(list.data).toContainEqual(expect.objectContaining({ publicKey: fresh, networkId: base }));
  });

  test('can require whitelisted destinations', async () => {
    const strict = await startSandbox({ rateLimit: false, requireWhitelistedAddress: true });
    try {
      const c = new RawClient(strict.baseUrl, strict.apiKey, strict.encryptionKey, strict.privateKey);
      const listed = await c.get<Array<{ publicKey: string; networkId: string }>>('/v1/api/whitelisted');
      const entry = listed.data[0];
      const refused = await c.post('/v1/api/withdraw', {
        amount: 10,
        address: ADDRESS,
        networkId: entry?.networkId,
      });
      expect(refused.envelope).toEqual({ status: 400, message: 'Address is not whitelisted' });
      const allowed = await c.post('/v1/api/withdraw', {
        amount: 10,
        address: entry?.publicKey,
        networkId: entry?.networkId,
      });
      expect(allowed.httpStatus).toBe(200);
      const saved = await c.post('/v1/api/withdraw', {
        amount: 10,
        address: ADDRESS,
        networkId: entry?.networkId,
        shouldSaveAddress: true,
      });
      expect(saved.httpStatus).toBe(200);
    } finally {
      await strict.stop();
    }
  });

  test('settles by itself after the configured delay', async ({ receiver }) => {
    const quick = await startSandbox({
      rateLimit: false,
      settleDelayMs: 5,
      webhookUrl: `${receiver.url}/quick`,
    });
    try {
      const c = new RawClient(quick.baseUrl, quick.apiKey, quick.encryptionKey, quick.privateKey);
      const networks = await c.get<Array<{ id: string; short_name: string }>>('/v1/api/networks');
      const bsc = networks.data.find((n) => n.short_name === 'bsc')?.id;
      const answer = await c.post<{ trxRef: string }>('/v1/api/withdraw', {
        amount: 50,
        address: ADDRESS,
        networkId: bsc,
      });
      const hook = await receiver.waitFor(forRef('withdrawal.completed', answer.data.trxRef));
      expect(hook.path).toBe('/quick');
      expect(signedCorrectly(hook, quick.webhookSecret)).toBe(true);
    } finally {
      await quick.stop();
    }
  });
});

describe('redemptions', () => {
  test('completes a payout and emits redemption.completed with a bank receiver string', async ({
    sandbox,
    client,
    receiver,
  }) => {
    const resolved = await client.post<{ accountName: string }>('/v1/api/account/verify', {
      accountNumber: '0123456789',
      bankCode: '058',
    });
    const answer = await client.post<{ trxRef: string; address: string }>('/v1/api/redeemAsset', {
      amount: 25000,
      bankCode: '058',
      accountNumber: '0123456789',
    });
    expect(answer.data.address).toMatch(/^0x[0-9a-f]{40}$/);
    await sandbox.settleAll();
    const hook = await receiver.waitFor(forRef('redemption.completed', answer.data.trxRef));
    expect(hook.json.data).toMatchObject({
      status: 'completed',
      trx_type: 'fiat_redeem',
      amount: '25000.00',
      receiver: `058:0123456789:${resolved.data.accountName}`,
    });
    const tx = await client.get<{ receiver: { bank: { code: string }; accountNumber: string } }>(
      `/v1/api/transactions/${answer.data.trxRef}`,
    );
    expect(tx.data.receiver).toMatchObject({ bank: { code: '058' }, accountNumber: '0123456789' });
  });

  test('a payout to the failing account fails, returns the token and says why', async ({
    sandbox,
    client,
    receiver,
  }) => {
    const before = await balance(client);
    const answer = await client.post<{ trxRef: string }>('/v1/api/redeemAsset', {
      amount: 1000,
      bankCode: '011',
      accountNumber: '9999999999',
    });
    expect(await balance(client)).toBe(
      Money.parseDecimal(before).minus(Money.parseDecimal('1000')).toString(),
    );
    await sandbox.settleAll();
    expect(await balance(client)).toBe(before);
    const tx = await client.get<{ status: string }>(`/v1/api/transactions/${answer.data.trxRef}`);
    expect(tx.data.status).toBe('failed');
    const hook = await receiver.waitFor(forRef('transaction.failed', answer.data.trxRef));
    expect(hook.json.data).toMatchObject({
      status: 'failed',
      trx_type: 'fiat_redeem',
      reason: 'Provider failed to process payout',
    });
    expect(signedCorrectly(hook, sandbox.webhookSecret)).toBe(true);
  });

  test('after POST /sandbox/fail-next-redemption, the next payout fails whatever the account, once', async ({
    sandbox,
    client,
    receiver,
  }) => {
    const armed = await fetch(`${sandbox.baseUrl}/sandbox/fail-next-redemption`, { method: 'POST' });
    expect(armed.status).toBe(200);
    const redeem = () =>
      client.post<{ trxRef: string }>('/v1/api/redeemAsset', {
        amount: 500,
        bankCode: '058',
        accountNumber: '0123456789',
      });
    const failing = await redeem();
    const next = await redeem();
    await sandbox.settleAll();
    expect(sandbox.transaction(failing.data.trxRef)?.status).toBe('failed');
    expect(sandbox.transaction(next.data.trxRef)?.status).toBe('completed');
    const hook = await receiver.waitFor(forRef('transaction.failed', failing.data.trxRef));
    expect(hook.json.data).toMatchObject({ reason: 'Provider failed to process payout' });
  });

  test('without a bank code, pays to the settlement bank', async ({ sandbox, client }) => {
    const answer = await client.post<{ trxRef: string }>('/v1/api/redeemAsset', {
      amount: 10,
      accountNumber: '0123456789',
    });
    const tx = sandbox.transaction(answer.data.trxRef);
    expect(tx?.receiver).toMatchObject({ bank: { name: 'Guaranty Trust Bank', code: '058' } });
  });

  test('updates the settlement account and echoes it', async ({ client }) => {
    const body = {
      bankName: 'Zenith Bank',
      bankAccountName: 'ADAORA FOODS LIMITED',
      bankAccountNumber: '1012345678',
    };
    try {
      const answer = await client.call('PUT', '/v1/api/bank-account', body);
      expect(answer.data).toEqual(body);
    } finally {
      // The file's sandbox pays redemptions without a bank code to this account: the one it starts with.
      await client.call('PUT', '/v1/api/bank-account', {
        bankName: 'Guaranty Trust Bank',
        bankAccountName: 'ADAORA FOODS LIMITED',
        bankAccountNumber: '0123456789',
      });
    }
  });
});

describe('webhook signing', () => {
  test('sends unsigned deliveries when the secret is empty', async ({ receiver }) => {
    const unsigned = await startSandbox({
      rateLimit: false,
      webhookSecret: '',
      webhookUrl: `${receiver.url}/unsigned`,
    });
    try {
      const { trx_ref } = await unsigned.simulateCryptoDeposit({ amount: '10' });
      const hook = await receiver.waitFor(forRef('deposit.completed', trx_ref));
      expect(hook.headers['x-cngn-signature']).toBeUndefined();
      expect(unsigned.webhookDeliveries).toEqual([
        { event: 'deposit.completed', body: hook.body, status: 200 },
      ]);
    } finally {
      await unsigned.stop();
    }
  });

  test('records a delivery to an unreachable URL as an error, sent once', async () => {
    const dead = await startSandbox({ rateLimit: false, webhookUrl: 'http://127.0.0.1:9/nowhere' });
    try {
      await dead.simulateCryptoDeposit({ amount: '10' });
      expect(dead.webhookDeliveries.map((d) => [d.event, d.status])).toEqual([
        ['deposit.completed', 'error'],
      ]);
    } finally {
      await dead.stop();
    }
  });
});
