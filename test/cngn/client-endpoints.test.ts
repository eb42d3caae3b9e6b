// Every endpoint through the real client against the embedded sandbox: real HTTP, real encryption.
import { test as base, describe, expect } from 'vitest';
import type { CngnClient } from '../../src/cngn/client.js';
import { Money } from '../../src/format/money.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { clientFor, lastPlainBody } from '../support/cngn-client.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/** One sandbox and one client on it for the file. */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('sandbox', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 600_000, whitelistTimelockMs: 0 });
    onCleanup(() => sandbox.stop());
    return sandbox;
  })
  .extend('client', { scope: 'file' }, async ({ sandbox }, { onCleanup }) => {
    const { client } = await clientFor(sandbox);
    onCleanup(() => client.close());
    return client;
  });

async function networkId(client: CngnClient, code: string): Promise<string> {
  const network = await client.resolveNetwork(code);
  if (!network) throw new Error(`no network ${code}`);
  return network.id;
}

describe('reads', () => {
  test('reads the balance as canonical decimal text, with the time it was read', async ({
    sandbox,
    client,
  }) => {
    const { entries, asOf } = await client.getBalanceWithTime();
    expect(entries).toEqual([
      expect.objectContaining({ asset_code: 'CNGN', balance: Money.parse(sandbox.balance()).toString() }),
    ]);
    expect(asOf).toBeInstanceOf(Date);
    expect(await client.getBalance()).toEqual(entries);
  });

  test('lists networks, with blockchain metadata only when asked', async ({ sandbox, client }) => {
    const plain = await client.getNetworks();
    expect(plain.length).toBeGreaterThanOrEqual(4);
    expect(plain.some((n) => n.isDisabled)).toBe(true);
    expect(plain.every((n) => n.blockchain == null)).toBe(true);
    const rich = await client.getNetworks({ includeBlockchain: true });
    expect(rich.every((n) => typeof (n.blockchain as { name?: unknown })?.name === 'string')).toBe(true);
    expect(sandbox.requests.some((r) => r.path === '/v1/api/networks?includeBlockchain=true')).toBe(true);
  });

  test('resolves a network by short code, name or id, case-insensitively', async ({ client }) => {
    const base = await client.resolveNetwork('BASE');
    expect(base?.name).toBe('Base');
    expect((await client.resolveNetwork('base'))?.id).toBe(base?.id);
    expect((await client.resolveNetwork('bnb smart chain'))?.short_name).toBe('bsc');
    expect((await client.resolveNetwork(base?.id.toUpperCase() ?? ''))?.id).toBe(base?.id);
    expect(await client.resolveNetwork('dogechain')).toBeUndefined();
  });

  test('lists banks with their codes', async ({ client }) => {
    const banks = await client.getBanks();
    expect(banks.length).toBeGreaterThanOrEqual(20);
    expect(banks).toContainEqual(expect.objectContaining({ name: 'First Bank of Nigeria', code: '011' }));
  });

  test('lists the dedicated virtual accounts as an array', async ({ client }) => {
    const accounts = await client.getDedicatedAccounts();
    expect(accounts[0]).toMatchObject({ accountNumber: expect.stringMatching(/^\d{10}$/) });
  });

  test('lists whitelisted addresses, with their network when asked', async ({ client }) => {
    const plain = await client.getWhitelisted();
    expect(plain.length).toBeGreaterThan(0);
    const rich = await client.getWhitelisted({ includeNetwork: true });
    expect(rich.every((entry) => typeof entry.network?.name === 'string')).toBe(true);
  });

  test('pages transactions and fetches one by reference, then verifies a withdrawal', async ({
    sandbox,
    client,
  }) => {
    const page = await client.getTransactions({ page: 1, limit: 5 });
    expect(page.data).toHaveLength(5);
    expect(page.pagination?.count).toBeGreaterThan(5);
    expect(sandbox.requests.some((r) => r.path === '/v1/api/transactions?page=1&limit=5')).toBe(true);
    const first = page.data[0];
    if (!first) throw new Error('no transaction');
    const one = await client.getTransaction(first.trx_ref);
    expect(one.trx_ref).toBe(first.trx_ref);
    expect(one.amount).toMatch(/^\d+\.\d{2}$/);

    const sent = await client.withdraw({
      amount: Money.parse('250'),
      address: ADDRESS,
      networkId: await networkId(client, 'bsc'),
    });
    const verified = await client.verifyWithdrawal(sent.trxRef);
    expect(verified).toMatchObject({ trx_ref: sent.trxRef, status: 'pending', amount: '250.00' });
  });
});

describe('writes', () => {
  test('creates a temporary account, sending exactly the documented fields', async ({ sandbox, client }) => {
    const account = await client.createTemporaryAccount({
      amount: Money.parse('1500.50'),
      customer: { email: 'ada@example.com' },
      narration: 'Invoice 42',
    });
    expect(account).toMatchObject({ amount: '1500.50', status: 'pending', currency: 'NGN' });
    expect(account.accountNumber).toMatch(/^\d{10}$/);
    expect(lastPlainBody(sandbox, 'POST', '/v1/api/virtual-account/temporary')).toEqual({
      amount: 1500.5,
      customer: { email: 'ada@example.com' },
      narration: 'Invoice 42',
    });
  });

  test('resolves a bank account to its name', async ({ sandbox, client }) => {
    const resolved = await client.resolveAccount({ accountNumber: '0123456789', bankCode: '011' });
    expect(resolved).toMatchObject({ accountNumber: '0123456789', accountName: expect.any(String) });
    expect(lastPlainBody(sandbox, 'POST', '/v1/api/account/verify')).toEqual({
      accountNumber: '0123456789',
      bankCode: '011',
    });
  });

  test('resolves an account without a bank code, which the specification leaves optional', async ({
    sandbox,
    client,
  }) => {
    const resolved = await client.resolveAccount({ accountNumber: '0123456788' });
    expect(resolved).toMatchObject({ accountNumber: '0123456788', accountName: expect.any(String) });
    expect(lastPlainBody(sandbox, 'POST', '/v1/api/account/verify')).toEqual({
      accountNumber: '0123456788',
    });
  });

  test('quotes a bridge with decimal-exact fees', async ({ sandbox, client }) => {
    const quote = await client.bridgeQuote({
      amount: Money.parse('1000.10'),
      originNetworkId: await networkId(client, 'base'),
      destinationNetworkId: await networkId(client, 'bsc'),
      destinationAddress: ADDRESS,
    });
    const total = Money.parse(quote.amountReceivable)
      .plus(Money.parse(quote.networkFee))
      .plus(Money.parse(quote.bridgeFee));
    expect(total.toString()).toBe('1000.10');
    expect(lastPlainBody(sandbox, 'POST', '/v1/api/bridge-quote')).toMatchObject({ amount: 1000.1 });
  });

  test('withdraws the exact amount and drops absent optional fields', async ({ sandbox, client }) => {
    const id = await networkId(client, 'base');
    const result = await client.withdraw({ amount: Money.parse('1500.50'), address: ADDRESS, networkId: id });
    expect(result.trxRef).toBeTruthy();
    expect(lastPlainBody(sandbox, 'POST', '/v1/api/withdraw')).toEqual({
      amount: 1500.5,
      address: ADDRESS,
      networkId: id,
    });
  });

  test('redeems to a bank account and reads the reference', async ({ sandbox, client }) => {
    const result = await client.redeem({
      amount: Money.parse('2000'),
      accountNumber: '0123456789',
      bankCode: '058',
      saveDetails: false,
    });
    expect(result.trxRef).toBeTruthy();
    expect(lastPlainBody(sandbox, 'POST', '/v1/api/redeemAsset')).toEqual({
      amount: 2000,
      bankCode: '058',
      accountNumber: '0123456789',
      saveDetails: false,
    });
    const transaction = await client.getTransaction(result.trxRef);
    expect(transaction.amount).toBe('2000.00');
  });

  test('starts a bridge and gets the address to send to', async ({ sandbox, client }) => {
    const result = await client.bridge({
      originNetworkId: await networkId(client, 'base'),
      destinationNetworkId: await networkId(client, 'polygon'),
      destinationAddress: ADDRESS,
      callbackUrl: 'https://desk.example.com/callbacks/bridge/abc',
    });
    expect(result).toMatchObject({ receivableAddress: expect.any(String), reference: expect.any(String) });
    expect(Object.keys(lastPlainBody(sandbox, 'POST', '/v1/api/bridge') as object).sort()).toEqual([
      'callbackUrl',
      'destinationAddress',
      'destinationNetworkId',
      'originNetworkId',
    ]);
  });

  test('whitelists an address and gets the whole list back', async ({ client }) => {
    const address = '0x1111111111111111111111111111111111111111';
    const list = await client.addWhitelist({ networkId: await networkId(client, 'polygon'), address });
    expect(list.some((entry) => entry.publicKey === address)).toBe(true);
  });

  test('updates the settlement bank account', async ({ sandbox, client }) => {
    const request = {
      bankName: 'Access Bank',
      bankAccountName: 'ADAORA FOODS LIMITED',
      bankAccountNumber: '0690000031',
    };
    expect(await client.updateSettlementAccount(request)).toMatchObject(request);
    expect(lastPlainBody(sandbox, 'PUT', '/v1/api/bank-account')).toEqual(request);
  });
});

describe('environment', () => {
  test('comes from the key prefix unless overridden to sandbox', async ({ sandbox, client }) => {
    expect(client.environment).toBe('test');
    const { client: marked } = await clientFor(sandbox, { environment: 'sandbox' });
    expect(marked.environment).toBe('sandbox');
    await marked.close();
    const live = await startSandbox({ apiKey: 'cngn_live_example', rateLimit: false });
    const { client: liveClient } = await clientFor(live);
    try {
      expect(liveClient.environment).toBe('live');
      expect((await liveClient.resolveNetwork('base'))?.id).not.toBe(await networkId(client, 'base'));
    } finally {
      await liveClient.close();
      await live.stop();
    }
  });

  test('refuses a key without a known prefix before sending anything', async ({ sandbox }) => {
    await expect(clientFor(sandbox, { apiKey: 'sk_test_123' })).rejects.toThrow(/cngn_test_ or cngn_live_/);
  });
});
