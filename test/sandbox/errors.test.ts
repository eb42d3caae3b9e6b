import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sealRequestBody } from '../../src/cngn/wire.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { RawClient } from './raw-client.js';

let sandbox: Sandbox;
let client: RawClient;
let networkId: string;

beforeAll(async () => {
  sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 60_000 });
  client = new RawClient(sandbox.baseUrl, sandbox.apiKey, sandbox.encryptionKey, sandbox.privateKey);
  const networks = await client.get<Array<{ id: string; isDisabled: boolean }>>('/v1/api/networks');
  networkId = networks.data.find((n) => !n.isDisabled)?.id ?? '';
});
afterAll(() => sandbox.stop());
beforeEach(() => {
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
  it('refuses a request without a key', () =>
    expectError(client.get('/v1/api/balance', { authorization: null }), 400, 'No token provided'));

  it('refuses a key without the cngn_test / cngn_live prefix', () =>
    expectError(
      client.get('/v1/api/balance', { authorization: 'Bearer sk_test_123' }),
      400,
      'Invalid token prefix',
    ));

  it('refuses an unknown key: balance for an unknown business is Merchant not found', () =>
    expectError(
      client.get('/v1/api/balance', { authorization: 'Bearer cngn_test_not_a_merchant' }),
      400,
      'Merchant not found',
    ));

  it('refuses calls from a server IP that is not allowed', async () => {
    sandbox.setIpAllowed(false);
    await expectError(client.get('/v1/api/balance'), 403, 'IP address not whitelisted');
  });

  it('refuses to answer when no SSH key was uploaded for the environment', async () => {
    sandbox.setSshKeyUploaded(false);
    await expectError(client.get('/v1/api/balance'), 400, 'No Test SSH Key found');
  });

  it('answers 404 for an unknown route', () =>
    expectError(client.get('/v1/api/swap'), 404, 'Route not found'));
});

describe('encrypted bodies', () => {
  it('refuses plain JSON', () =>
    expectError(
      client.post('/v1/api/account/verify', undefined, {
        rawBody: JSON.stringify({ accountNumber: '0123456789' }),
      }),
      400,
      'Missing encryption data, key, or IV',
    ));

  it('refuses a body sealed with another key', () =>
    expectError(
      client.post(
        '/v1/api/account/verify',
        { accountNumber: '0123456789', bankCode: '058' },
        { encryptionKey: 'wrong' },
      ),
      400,
      'Decryption failed',
    ));

  it('refuses a bad IV', () => {
    const sealed = sealRequestBody('{"accountNumber":"0123456789","bankCode":"058"}', sandbox.encryptionKey);
    return expectError(
      client.post('/v1/api/account/verify', undefined, {
        rawBody: JSON.stringify({ ...sealed, iv: 'AAAA' }),
      }),
      400,
      'Decryption failed',
    );
  });

  it('refuses a body over 1 MiB with 413', () =>
    expectError(
      client.post('/v1/api/account/verify', undefined, {
        rawBody: `{"content":"${'A'.repeat(1_100_000)}","iv":""}`,
      }),
      413,
      'Request entity too large',
    ));

  it('records the decrypted plain body of each encrypted request', async () => {
    await client.post('/v1/api/account/verify', { accountNumber: '0123456789', bankCode: '058' });
    const last = sandbox.requests.at(-1);
    expect(last).toMatchObject({ method: 'POST', path: '/v1/api/account/verify', status: 200 });
    expect(last?.plainBody).toEqual({ accountNumber: '0123456789', bankCode: '058' });
  });
});

describe('validation with the service messages', () => {
  const temporary = (body: Record<string, unknown>) =>
    client.post('/v1/api/virtual-account/temporary', {
      amount: 5000,
      customer: { email: 'ada@example.com' },
      ...body,
    });

  it('temporary account below ₦100', () =>
    expectError(temporary({ amount: 99.99 }), 400, 'amount: Minimum amount is 100 NGN'));
  it('account name under 3 characters', () =>
    expectError(
      temporary({ accountName: 'Ab' }),
      400,
      'accountName: Account name must be at least 3 characters',
    ));
  it('account name over 50 characters', () =>
    expectError(
      temporary({ accountName: 'A'.repeat(51) }),
      400,
      'accountName: Account name must be at most 50 characters',
    ));
  it('narration over 100 characters', () =>
    expectError(
      temporary({ narration: 'n'.repeat(101) }),
      400,
      'narration: Narration must be at most 100 characters',
    ));
  it('customer e-mail missing', () =>
    expectError(temporary({ customer: {} }), 400, 'customer.email: Required'));
  it('unknown fields are refused', () =>
    expectError(temporary({ reference: 'x' }), 400, 'reference: Unrecognized key(s) in object'));
  it('null fields are refused', () =>
    expectError(temporary({ narration: null }), 400, 'narration: Expected string, received null'));

  it('redemption below 1', () =>
    expectError(
      client.post('/v1/api/redeemAsset', { amount: 0.5, bankCode: '058', accountNumber: '0123456789' }),
      400,
      'amount: Number must be greater than or equal to 1',
    ));
  it('account numbers must be 10 digits', () =>
    expectError(
      client.post('/v1/api/account/verify', { accountNumber: '12345', bankCode: '058' }),
      400,
      'accountNumber: Account number must be 10 digits',
    ));
  it('settlement account number must be 10 digits', () =>
    expectError(
      client.call('PUT', '/v1/api/bank-account', {
        bankName: 'Guaranty Trust Bank',
        bankAccountName: 'ADAORA FOODS LIMITED',
        bankAccountNumber: '01234567890',
      }),
      400,
      'bankAccountNumber: Account number must be 10 digits',
    ));
  it('amounts carry at most 2 decimals', () =>
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
    it(`${method} ${path} needs ${permission}`, async () => {
      sandbox.setPermission(permission, false);
      await expectError(
        client.call(method, path, method === 'POST' ? {} : undefined),
        403,
        'Permission denied',
        false,
      );
    });
  }

  it('a key can be started without a permission', async () => {
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
  it('redemption while the service cannot process', async () => {
    sandbox.setServiceAvailable(false);
    await expectError(
      client.post('/v1/api/redeemAsset', { amount: 1000, bankCode: '058', accountNumber: '0123456789' }),
      400,
      'Service is currently unavailable. Please try again later.',
    );
  });

  it('an account that cannot be resolved', () =>
    expectError(
      client.post('/v1/api/account/verify', { accountNumber: '0000000000', bankCode: '058' }),
      400,
      'Could not resolve account details',
    ));

  it('an unknown bank cannot be resolved either', () =>
    expectError(
      client.post('/v1/api/account/verify', { accountNumber: '0123456789', bankCode: '999' }),
      400,
      'Could not resolve account details',
    ));

  it('withdrawal verification with an unknown reference', () =>
    expectError(client.get('/v1/api/withdraw/verify/CNGN-WD-NOPE'), 400, 'Transaction not found'));

  it('transaction lookup with an unknown reference', () =>
    expectError(client.get('/v1/api/transactions/CNGN-WD-NOPE'), 400, 'Transaction not found.'));
});

describe('account resolution', () => {
  it('resolves any 10-digit account at a known bank to the same name every time', async () => {
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
