import { test as base, describe, expect } from 'vitest';
import { Money } from '../../src/format/money.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { RawClient } from './raw-client.js';
import { type Received, startReceiver } from './receiver.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/**
 * One webhook receiver, sandbox (with the 24 h whitelist timelock, delivering to the receiver) and raw
 * client for the file, and `networks`, the network IDs by short name.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('service', { scope: 'file' }, async ({}, { onCleanup }) => {
    const receiver = await startReceiver();
    const sandbox = await startSandbox({
      rateLimit: false,
      settleDelayMs: 600_000,
      webhookUrl: `${receiver.url}/hooks`,
      whitelistTimelockMs: 24 * 3_600_000,
    });
    onCleanup(async () => {
      await sandbox.stop();
      await receiver.stop();
    });
    const client = new RawClient(sandbox.baseUrl, sandbox.apiKey, sandbox.encryptionKey, sandbox.privateKey);
    const list = await client.get<Array<{ id: string; short_name: string }>>('/v1/api/networks');
    const networks: Record<string, string> = Object.fromEntries(list.data.map((n) => [n.short_name, n.id]));
    return { sandbox, client, receiver, networks };
  })
  .extend('sandbox', { scope: 'file' }, async ({ service }) => service.sandbox)
  .extend('client', { scope: 'file' }, async ({ service }) => service.client)
  .extend('receiver', { scope: 'file' }, async ({ service }) => service.receiver)
  .extend('networks', { scope: 'file' }, async ({ service }) => service.networks);

const money = (text: string | number) => Money.fromService(text);

async function balance(client: RawClient): Promise<Money> {
  const { data } = await client.get<Array<{ balance: string }>>('/v1/api/balance');
  return money(data[0]?.balance ?? '');
}

async function control(sandbox: Sandbox, path: string, body?: unknown) {
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface TemporaryAccount {
  reference: string;
  amount: number;
  amountExpected: number;
  fee: number;
  vat: number;
  currency: string;
  status: string;
  accountNumber: string;
  accountName: string;
  bankName: string;
  bankCode: string;
  expiresAt: string;
  paymentReference: string;
  narration: string;
}

describe('temporary virtual accounts', () => {
  test('quotes fee and VAT, and a payment before expiry emits deposit.received then deposit.completed', async ({
    sandbox,
    client,
    receiver,
  }) => {
    const created = await client.post<TemporaryAccount>('/v1/api/virtual-account/temporary', {
      amount: 50000,
      customer: { email: 'ada@example.com', name: 'Ada Obi' },
      accountName: 'Ada Foods Checkout',
      narration: 'Invoice 42',
    });
    const account = created.data;
    expect(account).toMatchObject({
      amount: 50000,
      fee: 500,
      vat: 37.5,
      amountExpected: 50537.5,
      currency: 'NGN',
      status: 'pending',
      accountName: 'Ada Foods Checkout',
      narration: 'Invoice 42',
      accountNumber: expect.stringMatching(/^\d{10}$/),
      paymentReference: expect.any(String),
    });
    expect(Date.parse(account.expiresAt)).toBeGreaterThan(Date.now() + 25 * 60_000);

    const before = await balance(client);
    const paid = await control(sandbox, `/sandbox/pay/${account.reference}`);
    expect(paid.status).toBe(200);
    expect((await balance(client)).equals(before.plus(money(50000)))).toBe(true);

    const deposits = receiver.received.filter((r) => r.json.event?.startsWith('deposit.'));
    const events = deposits.slice(-2);
    expect(events.map((e) => e.json.event)).toEqual(['deposit.received', 'deposit.completed']);
    expect(events[0]?.json.data).toMatchObject({
      status: 'pending',
      trx_type: 'fiat_buy',
      amount: '50000.00',
    });
    expect(events[1]?.json.data).toMatchObject({
      status: 'completed',
      trx_type: 'fiat_buy',
      amount: '50000.00',
    });
    expect(events[0]?.json.data?.trx_ref).toBe(events[1]?.json.data?.trx_ref);

    const again = await control(sandbox, `/sandbox/pay/${account.reference}`);
    expect(again.status).toBe(400);
    expect(again.body.error).toMatch(/already paid/);
  });

  test('caps the fee at ₦2,000', async ({ client }) => {
    const created = await client.post<TemporaryAccount>('/v1/api/virtual-account/temporary', {
      amount: 1_000_000,
      customer: { email: 'big@example.com' },
    });
    expect(created.data).toMatchObject({ fee: 2000, vat: 150, amountExpected: 1_002_150 });
  });

  test('refuses a payment after expiresAt and credits nothing', async () => {
    const expired = await startSandbox({ rateLimit: false, temporaryAccountTtlMs: -1000 });
    try {
      const c = new RawClient(expired.baseUrl, expired.apiKey, expired.encryptionKey, expired.privateKey);
      const created = await c.post<TemporaryAccount>('/v1/api/virtual-account/temporary', {
        amount: 1000,
        customer: { email: 'late@example.com' },
      });
      await expect(expired.payTemporaryAccount(created.data.reference)).rejects.toThrow(/expired/);
      expect(expired.balance()).toBe('1250000.00');
    } finally {
      await expired.stop();
    }
  });

  test('refuses a payment of the wrong amount', async ({ sandbox, client }) => {
    const created = await client.post<TemporaryAccount>('/v1/api/virtual-account/temporary', {
      amount: 1000,
      customer: { email: 'short@example.com' },
    });
    await expect(sandbox.payTemporaryAccount(created.data.reference, '1000')).rejects.toThrow(
      /exactly 1010.75/,
    );
  });
});

describe('control routes', () => {
  test('show the books and refuse unknown controls', async ({ sandbox }) => {
    const state = await fetch(`${sandbox.baseUrl}/sandbox/state`);
    const body = (await state.json()) as { balance: string; pending: string[] };
    expect(body.balance).toBe(sandbox.balance());
    expect(Array.isArray(body.pending)).toBe(true);
    expect((await control(sandbox, '/sandbox/explode')).status).toBe(404);
    const bad = await control(sandbox, '/sandbox/crypto-deposit', { amount: '10', color: 'red' });
    expect(bad).toEqual({ status: 400, body: { error: 'color: Unrecognized key: "color"' } });
  });
});

describe('on-chain deposits', () => {
  test('credits a crypto_deposit with both hashes and emits deposit.completed only', async ({
    sandbox,
    client,
    receiver,
  }) => {
    const before = await balance(client);
    const answer = await control(sandbox, '/sandbox/crypto-deposit', { amount: '7500.25', network: 'bsc' });
    expect(answer.status).toBe(200);
    const reference = String(answer.body.trx_ref);
    expect((await balance(client)).equals(before.plus(money('7500.25')))).toBe(true);
    const hooks = receiver.received.filter((r) => r.json.data?.trx_ref === reference);
    expect(hooks.map((h) => h.json.event)).toEqual(['deposit.completed']);
    expect(hooks[0]?.json.data).toMatchObject({
      trx_type: 'crypto_deposit',
      status: 'completed',
      network: 'bsc',
      amount: '7500.25',
      base_trx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      extl_trx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      explorer_link: expect.stringContaining('bscscan.com/tx/'),
    });
    const tx = await client.get<{ trx_type: string }>(`/v1/api/transactions/${reference}`);
    expect(tx.data.trx_type).toBe('crypto_deposit');
  });
});

describe('bridges', () => {
  test('quotes exactly: receivable + network fee + bridge fee = amount', async ({ client, networks }) => {
    const quote = await client.post<{ amountReceivable: string; networkFee: string; bridgeFee: string }>(
      '/v1/api/bridge-quote',
      {
        amount: 100000.15,
        originNetworkId: networks.base,
        destinationNetworkId: networks.bsc,
        destinationAddress: ADDRESS,
      },
    );
    const { amountReceivable, networkFee, bridgeFee } = quote.data;
    for (const value of [amountReceivable, networkFee, bridgeFee]) expect(value).toMatch(/^\d+\.\d{2}$/);
    expect(
      money(amountReceivable).plus(money(networkFee)).plus(money(bridgeFee)).equals(money(100000.15)),
    ).toBe(true);
  });

  test('refuses an amount that does not cover the fees', async ({ client, networks }) => {
    const answer = await client.post('/v1/api/bridge-quote', {
      amount: 10,
      originNetworkId: networks.base,
      destinationNetworkId: networks.eth,
      destinationAddress: ADDRESS,
    });
    expect(answer.envelope).toEqual({
      status: 400,
      message: 'amount: Amount is too small to cover the bridge fees',
    });
  });

  test('refuses the same network at both ends', async ({ client, networks }) => {
    const answer = await client.post('/v1/api/bridge-quote', {
      amount: 1000,
      originNetworkId: networks.base,
      destinationNetworkId: networks.base,
      destinationAddress: ADDRESS,
    });
    expect(answer.envelope).toEqual({
      status: 400,
      message: 'destinationNetworkId: Origin and destination networks must differ',
    });
  });

  test('starts pending, completes with bridge.completed and calls the callback URL once, unsigned', async ({
    sandbox,
    client,
    receiver,
    networks,
  }) => {
    const quote = await client.post<{ amountReceivable: string }>('/v1/api/bridge-quote', {
      amount: 20000,
      originNetworkId: networks.polygon,
      destinationNetworkId: networks.celo,
      destinationAddress: ADDRESS,
    });
    const before = await balance(client);
    const started = await client.post<{
      receivableAddress: string;
      transactionId: string;
      reference: string;
    }>('/v1/api/bridge', {
      originNetworkId: networks.polygon,
      destinationNetworkId: networks.celo,
      destinationAddress: ADDRESS,
      callbackUrl: `${receiver.url}/bridge-callback/abc`,
    });
    expect(started.data.receivableAddress).toMatch(/^0x[0-9a-f]{40}$/);
    expect((await balance(client)).equals(before.minus(money(20000)))).toBe(true);
    const pending = await client.get<{ status: string; trx_type: string }>(
      `/v1/api/transactions/${started.data.reference}`,
    );
    expect(pending.data).toMatchObject({ status: 'pending', trx_type: 'swap' });

    await control(sandbox, '/sandbox/settle');
    const done = await client.get<{ extl_trx_hash: string; explorer_link: string }>(
      `/v1/api/transactions/${started.data.reference}`,
    );
    const hook = await receiver.waitFor(
      (r: Received) => r.json.event === 'bridge.completed' && r.json.data?.trx_ref === started.data.reference,
    );
    expect(hook.json.data).toMatchObject({ status: 'completed', trx_type: 'swap', receiver: ADDRESS });
    const callbacks = receiver.received.filter((r) => r.path === '/bridge-callback/abc');
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]?.headers['x-cngn-signature']).toBeUndefined();
    expect(callbacks[0]?.json).toEqual({
      explorerLink: done.data.explorer_link,
      hash: done.data.extl_trx_hash,
      transactionId: started.data.transactionId,
      status: 'completed',
      amount: quote.data.amountReceivable,
    });
  });
});

describe('whitelist', () => {
  test('adds an address, returns the full list, then holds the 24 h timelock', async ({
    client,
    networks,
  }) => {
    const before = await client.get<unknown[]>('/v1/api/whitelisted');
    const added = await client.post<
      Array<{ publicKey: string; networkId: string; internalPublicKey: string }>
    >('/v1/api/whitelist', { networkId: networks.eth, address: ADDRESS });
    expect(added.data).toHaveLength(before.data.length + 1);
    expect(added.data).toContainEqual(
      expect.objectContaining({ publicKey: ADDRESS, networkId: networks.eth }),
    );
    const second = await client.post('/v1/api/whitelist', {
      networkId: networks.polygon,
      address: '0x2222222222222222222222222222222222222222',
    });
    expect(second.envelope.status).toBe(400);
    expect(second.envelope.message).toMatch(
      /^Whitelist timelock active: another address can be added after \d{4}-\d\d-\d\dT[\d:.]+Z$/,
    );
  });

  test('without a timelock, adds freely but refuses a duplicate', async ({ networks }) => {
    const open = await startSandbox({ rateLimit: false, whitelistTimelockMs: 0 });
    try {
      const c = new RawClient(open.baseUrl, open.apiKey, open.encryptionKey, open.privateKey);
      expect(
        (await c.post('/v1/api/whitelist', { networkId: networks.eth, address: ADDRESS })).httpStatus,
      ).toBe(200);
      const other = '0x3333333333333333333333333333333333333333';
      expect(
        (await c.post('/v1/api/whitelist', { networkId: networks.eth, address: other })).httpStatus,
      ).toBe(200);
      const duplicate = await c.post('/v1/api/whitelist', {
        networkId: networks.eth,
        address: ADDRESS.toLowerCase(),
      });
      expect(duplicate.envelope).toEqual({
        status: 400,
        message: 'Address is already whitelisted on Ethereum',
      });
    } finally {
      await open.stop();
    }
  });
});
