import { test as base, describe, expect } from 'vitest';
import { sealRequestBody } from '../../src/cngn/wire.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { RawClient } from './raw-client.js';

/**
 * One sandbox and raw client for the file, and `networkId`, the first network it lists as enabled.
 * Before each test every permission, the service, the server IP and the SSH key are as a sandbox
 * starts (a test may switch them off).
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('service', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 60_000 });
    onCleanup(() => sandbox.stop());
    const client = new RawClient(sandbox.baseUrl, sandbox.apiKey, sandbox.encryptionKey, sandbox.privateKey);
    const networks = await client.get<Array<{ id: string; isDisabled: boolean }>>('/v1/api/networks');
    const networkId = networks.data.find((n) => !n.isDisabled)?.id ?? '';
    return { sandbox, client, networkId };
  })
  .extend('sandbox', { scope: 'file' }, async ({ service }) => service.sandbox)
  .extend('client', { scope: 'file' }, async ({ service }) => service.client)
  .extend('networkId', { scope: 'file' }, async ({ service }) => service.networkId)
  .extend('switchedOn', { auto: true }, async ({ sandbox }) => {
    for (const p of ['swap', 'fiatDeposit', 'sendCrypto', 'redeem'] as const) sandbox.setPermission(p, true);
    sandbox.setServiceAvailable(true);
    sandbox.setIpAllowed(true);
    sandbox.setSshKeyUploaded(true);
  });

/** The error envelope exactly: `{status, message}` and no data. */
async function expectError(
  answer: Promise<{ httpStatus: number; envelope: Record<string, unknown> }>,
  httpStatus: number,
  message: string,
  status: number | false = httpStatus,
) {
  const { httpStatus: got, envelope } = await answer;
  expect({ got, envelope }).toEqual({ got: httpStatus, envelope: { status, message } });
}

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

describe('authentication', () => {
  test('refuses a request without a key', ({ client }) =>
    expectError(client.get('/v1/api/balance', { authorization: null }), 400, 'No token provided'));

  test('refuses a key without the cngn_test / cngn_live prefix', ({ client }) =>
    expectError(
      client.get('/v1/api/balance', { authorization: 'Bearer sk_test_123' }),
      400,
      'Invalid token prefix',
    ));

  test('refuses an unknown key: balance for an unknown business is Merchant not found', ({ client }) =>
    expectError(
      client.get('/v1/api/balance', { authorization: 'Bearer cngn_test_not_a_merchant' }),
      400,
      'Merchant not found',
    ));

  test('refuses calls from a server IP that is not allowed', async ({ sandbox, client }) => {
    sandbox.setIpAllowed(false);
    await expectError(client.get('/v1/api/balance'), 403, 'IP address not whitelisted');
  });

  test('refuses to answer when no SSH key was uploaded for the environment', async ({ sandbox, client }) => {
    sandbox.setSshKeyUploaded(false);
    await expectError(client.get('/v1/api/balance'), 400, 'No Test SSH Key found');
  });

  test('answers 404 for an unknown route', ({ client }) =>
    expectError(client.get('/v1/api/swap'), 404, 'Route not found'));
});

describe('encrypted bodies', () => {
  test('refuses plain JSON', ({ client }) =>
    expectError(
      client.post('/v1/api/account/verify', undefined, {
        rawBody: JSON.stringify({ accountNumber: '0123456789' }),
      }),
      400,
      'Missing encryption data, key, or IV',
    ));

  test('refuses a body sealed with another key', ({ client }) =>
    expectError(
      client.post(
        '/v1/api/account/verify',
        { accountNumber: '0123456789', bankCode: '058' },
        { encryptionKey: 'wrong' },
      ),
      400,
      'Decryption failed',
    ));

  test('refuses a bad IV', ({ sandbox, client }) => {
    const sealed = sealRequestBody('{"accountNumber":"0123456789","bankCode":"058"}', sandbox.encryptionKey);
    return expectError(
      client.post('/v1/api/account/verify', undefined, {
        rawBody: JSON.stringify({ ...sealed, iv: 'AAAA' }),
      }),
      400,
      'Decryption failed',
    );
  });

  test('refuses a body over 1 MiB with 413', ({ client }) =>
    expectError(
      client.post('/v1/api/account/verify', undefined, {
        rawBody: `{"content":"${'A'.repeat(1_100_000)}","iv":""}`,
      }),
      413,
      'Request entity too large',
    ));

  test('records the decrypted plain body of each encrypted request', async ({ sandbox, client }) => {
    await client.post('/v1/api/account/verify', { accountNumber: '0123456789', bankCode: '058' });
    const last = sandbox.requests.at(-1);
    expect(last).toMatchObject({ method: 'POST', path: '/v1/api/account/verify', status: 200 });
    expect(last?.plainBody).toEqual({ accountNumber: '0123456789', bankCode: '058' });
  });
});

describe('validation with the service messages', () => {
  const temporary = (client: RawClient, body: Record<string, unknown>) =>
    client.post('/v1/api/virtual-account/temporary', {
      amount: 5000,
      customer: { email: 'ada@example.com' },
      ...body,
    });

  test('temporary account below ₦100', ({ client }) =>
    expectError(temporary(client, { amount: 99.99 }), 400, 'amount: Minimum amount is 100 NGN'));
  test('account name under 3 characters', ({ client }) =>
    expectError(
      temporary(client, { accountName: 'Ab' }),
      400,
      'accountName: Account name must be at least 3 characters',
    ));
  test('account name over 50 characters', ({ client }) =>
    expectError(
      temporary(client, { accountName: 'A'.repeat(51) }),
      400,
      'accountName: Account name must be at most 50 characters',
    ));
  test('narration over 100 characters', ({ client }) =>
    expectError(
      temporary(client, { narration: 'n'.repeat(101) }),
      400,
      'narration: Narration must be at most 100 characters',
    ));
  test('customer e-mail missing', ({ client }) =>
    expectError(temporary(client, { customer: {} }), 400, 'customer.email: Required'));
  test('unknown fields are refused', ({ client }) =>
    expectError(temporary(client, { reference: 'x' }), 400, 'reference: Unrecognized key(s) in object'));
  test('null fields are refused', ({ client }) =>
    expectError(temporary(client, { narration: null }), 400, 'narration: Expected string, received null'));

  test('redemption below 1', ({ client }) =>
    expectError(
      client.post('/v1/api/redeemAsset', { amount: 0.5, bankCode: '058', accountNumber: '0123456789' }),
      400,
      'amount: Number must be greater than or equal to 1',
    ));
  test('account numbers must be 10 digits', ({ client }) =>
    expectError(
      client.post('/v1/api/account/verify', { accountNumber: '12345', bankCode: '058' }),
      400,
      'accountNumber: Account number must be 10 digits',
    ));
  test('settlement account number must be 10 digits', ({ client }) =>
    expectError(
      client.call('PUT', '/v1/api/bank-account', {
        bankName: 'Guaranty Trust Bank',
        bankAccountName: 'ADAORA FOODS LIMITED',
        bankAccountNumber: '01234567890',
      }),
      400,
      'bankAccountNumber: Account number must be 10 digits',
    ));
  test('amounts carry at most 2 decimals', ({ client, networkId }) =>
    expectError(
      client.post('/v1/api/withdraw', { amount: 10.005, address: ADDRESS, networkId }),
      400,
      'amount: Amount must have at most 2 decimal places',
    ));
});

describe('permissions', () => {
  const cases = [
    ['swap', 'POST', '/v1/api/bridge-quote'],
    ['swap', 'POST', '/v1/api/bridge'],
    ['fiatDeposit', 'GET', '/v1/api/virtual-account'],
    ['fiatDeposit', 'POST', '/v1/api/virtual-account/temporary'],
    ['sendCrypto', 'POST', '/v1/api/withdraw'],
    ['redeem', 'POST', '/v1/api/redeemAsset'],
  ] as const;
  for (const [permission, method, path] of cases) {
    test(`${method} ${path} needs ${permission}`, async ({ sandbox, client }) => {
      sandbox.setPermission(permission, false);
      await expectError(
        client.call(method, path, method === 'POST' ? {} : undefined),
        403,
        'Permission denied',
        false,
      );
    });
  }

  test('a key can be started without a permission', async () => {
    const limited = await startSandbox({ rateLimit: false, permissions: { redeem: false } });
    try {
      const c = new RawClient(limited.baseUrl, limited.apiKey, limited.encryptionKey, limited.privateKey);
      await expectError(c.post('/v1/api/redeemAsset', {}), 403, 'Permission denied', false);
      expect((await c.get('/v1/api/virtual-account')).httpStatus).toBe(200);
    } finally {
      await limited.stop();
    }
  });
});

describe("the specification's Errors table", () => {
  test('redemption while the service cannot process', async ({ sandbox, client }) => {
    sandbox.setServiceAvailable(false);
    await expectError(
      client.post('/v1/api/redeemAsset', { amount: 1000, bankCode: '058', accountNumber: '0123456789' }),
      400,
      'Service is currently unavailable. Please try again later.',
    );
  });

  test('an account that cannot be resolved', ({ client }) =>
    expectError(
      client.post('/v1/api/account/verify', { accountNumber: '0000000000', bankCode: '058' }),
      400,
      'Could not resolve account details',
    ));

  test('an unknown bank cannot be resolved either', ({ client }) =>
    expectError(
      client.post('/v1/api/account/verify', { accountNumber: '0123456789', bankCode: '999' }),
      400,
      'Could not resolve account details',
    ));

  test('withdrawal verification with an unknown reference', ({ client }) =>
    expectError(client.get('/v1/api/withdraw/verify/CNGN-WD-NOPE'), 400, 'Transaction not found'));

  test('transaction lookup with an unknown reference', ({ client }) =>
    expectError(client.get('/v1/api/transactions/CNGN-WD-NOPE'), 400, 'Transaction not found.'));
});

describe('account resolution', () => {
  test('resolves any 10-digit account at a known bank to the same name every time', async ({ client }) => {
    const first = await client.post<{ accountName: string; accountNumber: string; bankCode: string }>(
      '/v1/api/account/verify',
      { accountNumber: '0123456789', bankCode: '058' },
    );
    const again = await client.post<{ accountName: string }>('/v1/api/account/verify', {
      accountNumber: '0123456789',
      bankCode: '058',
    });
    expect(first.data).toMatchObject({ accountNumber: '0123456789', bankCode: '058' });
    expect(first.data.accountName).toMatch(/^[A-Z]+ [A-Z]+( [A-Z]+)?$/);
    expect(again.data.accountName).toBe(first.data.accountName);
  });
});
