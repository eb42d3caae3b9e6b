// Failures the client must turn into clear, typed errors: both error envelopes, retries of reads
// (and never of writes), timeouts, unknown outcomes, and responses it cannot trust.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test as base, describe, expect } from 'vitest';
import type { CngnClient } from '../../src/cngn/client.js';
import { CngnError, CngnResponseError, CngnTransportError, RateBudgetError } from '../../src/cngn/errors.js';
import {
  curvePublicFromEd25519,
  generateOpenSshKeyPair,
  parseOpenSshPrivateKey,
  sealResponseData,
} from '../../src/cngn/wire.js';
import { Money } from '../../src/format/money.js';
import { startSandbox, UNRESOLVABLE_ACCOUNT } from '../../src/sandbox/index.js';
import { clientFor } from '../support/cngn-client.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

/** What a stub server answers: `answer` unless `queue` holds answers given first, one per request. */
interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * One sandbox and client for the file; `sandbox` gives sending crypto back after each test that used
 * it; `extraClient(...)` opens a client that is closed after the test. `server` and `stub`: one server
 * for the file that answers what a test sets, and a client on it.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('fileSandbox', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({ rateLimit: false, settleDelayMs: 600_000 });
    onCleanup(() => sandbox.stop());
    return sandbox;
  })
  .extend('sandbox', async ({ fileSandbox }, { onCleanup }) => {
    onCleanup(() => fileSandbox.setPermission('sendCrypto', true));
    return fileSandbox;
  })
  .extend('client', { scope: 'file' }, async ({ fileSandbox }, { onCleanup }) => {
    const { client } = await clientFor(fileSandbox);
    onCleanup(() => client.close());
    return client;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('extraClient', async ({}, { onCleanup }) => {
    const opened: CngnClient[] = [];
    onCleanup(async () => {
      await Promise.all(opened.splice(0).map((c) => c.close()));
    });
    return async (...args: Parameters<typeof clientFor>): Promise<CngnClient> => {
      const { client: made } = await clientFor(...args);
      opened.push(made);
      return made;
    };
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('server', { scope: 'file' }, async ({}, { onCleanup }) => {
    const state = {
      answer: { status: 200, body: '{}' } as Answer,
      queue: [] as Answer[],
      served: 0,
      port: 0,
    };
    const server: Server = createServer((_req, res) => {
      const next = state.queue.shift() ?? state.answer;
      state.served += 1;
      res.writeHead(next.status, { 'content-type': 'text/plain', ...next.headers });
      res.end(next.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.port = (server.address() as AddressInfo).port;
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return state;
  })
  .extend('stub', { scope: 'file' }, async ({ fileSandbox, server }, { onCleanup }) => {
    const { client: stub } = await clientFor(fileSandbox, { baseUrl: `http://127.0.0.1:${server.port}` });
    onCleanup(() => stub.close());
    return stub;
  })
  .extend('sealed', { scope: 'file' }, async ({ fileSandbox }) => {
    const curvePublic = await curvePublicFromEd25519(
      parseOpenSshPrivateKey(fileSandbox.privateKey).publicKey,
    );
    return (value: unknown) => sealResponseData(JSON.stringify(value), curvePublic);
  });

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

async function baseId(client: CngnClient): Promise<string> {
  return (await client.resolveNetwork('base'))?.id ?? '';
}

describe('error envelopes', () => {
  test('turns `status:false` with HTTP 403 into a CngnError with status, message and endpoint', async ({
    sandbox,
    client,
  }) => {
    sandbox.setPermission('sendCrypto', false);
    const error = await failure(
      client.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: await baseId(client) }),
    );
    expect(error).toBeInstanceOf(CngnError);
    expect(error).toMatchObject({
      httpStatus: 403,
      serviceMessage: 'Permission denied',
      endpoint: 'POST /v1/api/withdraw',
      kind: 'permission-denied',
    });
  });

  test('turns a numeric status into a CngnError whose endpoint names no reference', async ({ client }) => {
    const error = await failure(client.getTransaction('TRX-SECRET-REF'));
    expect(error).toBeInstanceOf(CngnError);
    expect(error).toMatchObject({
      httpStatus: 400,
      serviceMessage: 'Transaction not found.',
      endpoint: 'GET /v1/api/transactions/{ref}',
      kind: 'not-found',
    });
    expect((error as Error).message).not.toContain('TRX-SECRET-REF');
  });

  test('does not retry a 400', async ({ sandbox, client }) => {
    const before = sandbox.count('GET', '/v1/api/withdraw/verify/');
    await expect(client.verifyWithdrawal('nope')).rejects.toMatchObject({
      serviceMessage: 'Transaction not found',
    });
    expect(sandbox.count('GET', '/v1/api/withdraw/verify/') - before).toBe(1);
  });
});

describe('every row of the Errors table, through the client', () => {
  test('temporary account below the minimum', async ({ client }) => {
    await expect(
      client.createTemporaryAccount({ amount: Money.parse('99.99'), customer: { email: 'a@example.com' } }),
    ).rejects.toMatchObject({
      httpStatus: 400,
      serviceMessage: 'amount: Minimum amount is 100 NGN',
      kind: 'validation',
    });
  });

  test('redemption while the service cannot process', async ({ sandbox, client }) => {
    sandbox.setServiceAvailable(false);
    try {
      await expect(
        client.redeem({ amount: Money.parse('10'), accountNumber: '0123456789', bankCode: '011' }),
      ).rejects.toMatchObject({
        httpStatus: 400,
        serviceMessage: 'Service is currently unavailable. Please try again later.',
        kind: 'service-unavailable',
      });
    } finally {
      sandbox.setServiceAvailable(true);
    }
  });

  test('an account that cannot be resolved', async ({ client }) => {
    await expect(
      client.resolveAccount({ accountNumber: UNRESOLVABLE_ACCOUNT, bankCode: '011' }),
    ).rejects.toMatchObject({
      serviceMessage: 'Could not resolve account details',
      kind: 'account-unresolvable',
    });
  });

  test('balance for an unknown business', async ({ sandbox, extraClient }) => {
    const stranger = await extraClient(sandbox, { apiKey: 'cngn_test_not_a_customer' });
    await expect(stranger.getBalance()).rejects.toMatchObject({
      httpStatus: 400,
      serviceMessage: 'Merchant not found',
      endpoint: 'GET /v1/api/balance',
    });
  });

  test('an IP the service does not allow', async ({ sandbox, client }) => {
    sandbox.setIpAllowed(false);
    try {
      await expect(client.getTransactions()).rejects.toMatchObject({
        httpStatus: 403,
        kind: 'ip-not-allowed',
      });
    } finally {
      sandbox.setIpAllowed(true);
    }
  });
});

describe('retries', () => {
  test('retries a GET after a 503 and succeeds', async ({ sandbox, extraClient }) => {
    const fresh = await extraClient(sandbox);
    const before = sandbox.count('GET', '/v1/api/balance');
    sandbox.failNext('GET', '/v1/api/balance', 503);
    const entries = await fresh.getBalance();
    expect(entries[0]?.asset_code).toBe('CNGN');
    expect(sandbox.count('GET', '/v1/api/balance') - before).toBe(2);
  });

  test('gives up on a GET after three attempts with the service message', async ({ sandbox, client }) => {
    const before = sandbox.count('GET', '/v1/api/virtual-account');
    sandbox.failNext('GET', '/v1/api/virtual-account', 502, 3, 'Bad gateway');
    const error = await failure(client.getDedicatedAccounts());
    expect(error).toMatchObject({ httpStatus: 502, serviceMessage: 'Bad gateway', kind: 'server-error' });
    expect(sandbox.count('GET', '/v1/api/virtual-account') - before).toBe(3);
  });

  test('never retries a POST after a 503 and reports the outcome as unknown', async ({ sandbox, client }) => {
    const before = sandbox.count('POST', '/v1/api/withdraw');
    sandbox.failNext('POST', '/v1/api/withdraw', 503);
    const error = await failure(
      client.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: await baseId(client) }),
    );
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: true, endpoint: 'POST /v1/api/withdraw' });
    expect((error as Error).message).toMatch(/outcome is unknown/);
    expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(1);
  });
});

describe('a 429 on a write', () => {
  test('is not retried, says rate-limited, and blocks the budget for every caller', async ({
    sandbox,
    client,
    extraClient,
  }) => {
    const own = await extraClient(sandbox);
    const before = sandbox.count('POST', '/v1/api/withdraw');
    sandbox.failNext('POST', '/v1/api/withdraw', 429, 1, 'Too many requests. Please try again later.');
    const error = await failure(
      own.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: await baseId(client) }),
    );
    expect(error).toBeInstanceOf(CngnError);
    expect(error).toMatchObject({ httpStatus: 429, kind: 'rate-limited' });
    expect(sandbox.count('POST', '/v1/api/withdraw') - before).toBe(1);
    expect((await own.budget()).blockedForSeconds).toBeGreaterThanOrEqual(60);
    await expect(own.getTransactions()).rejects.toBeInstanceOf(RateBudgetError);
  });
});

describe('timeouts and lost answers', () => {
  test('surfaces a held POST as a timeout whose outcome is unknown, sent once', async ({
    sandbox,
    extraClient,
  }) => {
    const impatient = await extraClient(sandbox, { timeouts: { headersMs: 150 } });
    const before = sandbox.count('POST', '/v1/api/redeemAsset');
    const held = sandbox.hold('POST', '/v1/api/redeemAsset');
    const call = failure(
      impatient.redeem({ amount: Money.parse('5'), accountNumber: '0123456789', bankCode: '011' }),
    );
    await held.arrived;
    const error = await call;
    held.release();
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: true, endpoint: 'POST /v1/api/redeemAsset' });
    expect((error as Error).message).toMatch(/no answer in time; the outcome is unknown/);
    expect(sandbox.count('POST', '/v1/api/redeemAsset') - before).toBe(1);
  });

  test('surfaces a held GET as a timeout once its attempts are spent', async ({ sandbox, extraClient }) => {
    const impatient = await extraClient(sandbox, { timeouts: { headersMs: 150 }, retry: { attempts: 1 } });
    const held = sandbox.hold('GET', '/v1/api/whitelisted');
    const error = await failure(impatient.getWhitelisted());
    held.release();
    expect(error).toBeInstanceOf(CngnTransportError);
    expect((error as Error).message).toMatch(/GET \/v1\/api\/whitelisted: no answer in time/);
  });

  test('reports a dropped answer to a POST as possibly sent', async ({ sandbox, client }) => {
    sandbox.dropResponse('POST', '/v1/api/withdraw');
    const error = await failure(
      client.withdraw({ amount: Money.parse('12'), address: ADDRESS, networkId: await baseId(client) }),
    );
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: true });
  });

  test('reports a refused connection as not sent', async ({ sandbox, extraClient }) => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const nowhere = await extraClient(sandbox, { baseUrl: `http://127.0.0.1:${port}` });
    const error = await failure(
      nowhere.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: 'x' }),
    );
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: false });
    expect((error as Error).message).toMatch(/refused; nothing was sent/);
  });

  test('reports a POST whose key cannot be a header as not sent, and nothing reaches the service', async ({
    sandbox,
    extraClient,
  }) => {
    // undici refuses a header value holding a line break before it writes anything.
    const badKey = await extraClient(sandbox, { apiKey: `${sandbox.apiKey}\n` });
    const withdrawals = sandbox.count('POST', '/v1/api/withdraw');
    const error = await failure(
      badKey.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: 'x' }),
    );
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: false });
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(withdrawals);
  });

  test('reports a call after the client closed as not sent', async ({ sandbox, extraClient }) => {
    const closing = await extraClient(sandbox);
    await closing.close();
    const withdrawals = sandbox.count('POST', '/v1/api/withdraw');
    const error = await failure(
      closing.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: 'x' }),
    );
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: false });
    expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(withdrawals);
  });
});

describe('responses that cannot be trusted', () => {
  test('refuses data sealed to another key, naming the cause', async ({ sandbox, extraClient }) => {
    const stranger = await extraClient(sandbox, { privateKey: generateOpenSshKeyPair().privateKey });
    const error = await failure(stranger.getBanks());
    expect(error).toBeInstanceOf(CngnResponseError);
    expect((error as Error).message).toMatch(
      /GET \/v1\/api\/banks: .*tampered with or sealed to another key/,
    );
  });

  describe('from a misbehaving server', () => {
    test('refuses tampered data', async ({ server, stub, sealed }) => {
      const blob = Buffer.from(sealed([{ name: 'Access Bank', code: '044' }]), 'base64');
      blob[30] = (blob[30] ?? 0) ^ 1;
      server.answer = {
        status: 200,
        body: JSON.stringify({ status: 200, message: 'ok', data: blob.toString('base64') }),
      };
      await expect(stub.getBanks({ fresh: true })).rejects.toThrow(/tampered with or sealed to another key/);
    });

    test('names the field of a response with the wrong shape, without dumping the data', async ({
      server,
      stub,
      sealed,
    }) => {
      const data = sealed({ trxRef: 12345, address: 'secret-address' });
      server.answer = { status: 200, body: JSON.stringify({ status: 200, message: 'ok', data }) };
      const error = await failure(
        stub.withdraw({ amount: Money.parse('1'), address: ADDRESS, networkId: 'n' }),
      );
      expect(error).toBeInstanceOf(CngnResponseError);
      expect((error as Error).message).toMatch(
        /^POST \/v1\/api\/withdraw: unexpected response shape at trxRef/,
      );
      expect((error as Error).message).not.toContain('secret-address');
    });

    test('says which unreadable answer came from a call that moves money or changes a setting', async ({
      server,
      stub,
    }) => {
      server.answer = { status: 200, body: JSON.stringify({ status: 200, message: 'ok', data: 5 }) };
      const amount = Money.parse('1');
      const route = { originNetworkId: 'a', destinationNetworkId: 'b', destinationAddress: ADDRESS };
      const calls: Array<[() => Promise<unknown>, string]> = [
        [() => stub.withdraw({ amount, address: ADDRESS, networkId: 'n' }), 'moves-money'],
        [() => stub.redeem({ amount, accountNumber: '0123456789', bankCode: '044' }), 'moves-money'],
        [() => stub.bridge(route), 'moves-money'],
        [() => stub.addWhitelist({ networkId: 'n', address: ADDRESS }), 'whitelist'],
        [
          () =>
            stub.updateSettlementAccount({
              bankName: 'Access Bank',
              bankAccountName: 'Ada Obi',
              bankAccountNumber: '0123456789',
            }),
          'settlement-account',
        ],
        [() => stub.bridgeQuote({ amount, ...route }), 'none'],
        [() => stub.getBanks({ fresh: true }), 'none'],
      ];
      for (const [call, effect] of calls) {
        const error = await failure(call());
        expect(error).toMatchObject({
          code: 'cngn_unreadable_answer',
          effect,
          movesMoney: effect === 'moves-money',
        });
      }
    });

    test('accepts plain object data and treats absent data of a list as empty', async ({ server, stub }) => {
      server.answer = {
        status: 200,
        body: JSON.stringify({ status: 200, message: 'ok', data: [{ name: 'X', code: '1' }] }),
      };
      expect(await stub.getBanks({ fresh: true })).toEqual([{ name: 'X', code: '1' }]);
      server.answer = { status: 200, body: JSON.stringify({ status: 200, message: 'ok' }) };
      expect(await stub.getWhitelisted()).toEqual([]);
    });

    test('reads an HTML 403 page from a proxy as a CngnError', async ({ server, stub }) => {
      server.answer = {
        status: 403,
        body: '<html><head><title>403 Forbidden</title></head><body>nginx</body></html>',
      };
      await expect(stub.getTransactions()).rejects.toMatchObject({
        httpStatus: 403,
        serviceMessage: '403 Forbidden',
        endpoint: 'GET /v1/api/transactions',
      });
    });

    test('honours a short Retry-After on a 503 read, and does not sit out a long one', async ({
      server,
      stub,
    }) => {
      const unavailable = JSON.stringify({ status: 503, message: 'Service Unavailable' });
      const banks = JSON.stringify({ status: 200, message: 'ok', data: [{ name: 'X', code: '1' }] });
      server.queue.push({ status: 503, body: unavailable, headers: { 'retry-after': '0' } });
      server.answer = { status: 200, body: banks };
      let before = server.served;
      expect(await stub.getBanks({ fresh: true })).toHaveLength(1);
      expect(server.served - before).toBe(2);

      server.answer = { status: 503, body: unavailable, headers: { 'retry-after': '3600' } };
      before = server.served;
      await expect(stub.getBanks({ fresh: true })).rejects.toMatchObject({
        httpStatus: 503,
        serviceMessage: 'Service Unavailable',
      });
      expect(server.served - before).toBe(1);
    });

    test('reads the older `{error}` shape and a 200 carrying an error status', async ({ server, stub }) => {
      server.answer = { status: 400, body: JSON.stringify({ error: 'Invalid request' }) };
      await expect(stub.getTransactions()).rejects.toMatchObject({
        httpStatus: 400,
        serviceMessage: 'Invalid request',
      });
      server.answer = { status: 200, body: JSON.stringify({ status: 400, message: 'Merchant not found' }) };
      await expect(stub.getTransactions()).rejects.toMatchObject({
        httpStatus: 400,
        kind: 'merchant-not-found',
      });
    });
  });
});

describe('the service rate limit', () => {
  test('after a 429 the key counts as blocked: reads are told to wait instead of hammering', async () => {
    const strict = await startSandbox({ rateLimit: { limit: 2, windowMs: 60_000, blockMs: 60_000 } });
    // A client that believes in a bigger budget than the service grants (another tool shares the key).
    const { client: naive } = await clientFor(strict);
    try {
      await naive.getTransactions();
      await naive.getDedicatedAccounts();
      const error = await failure(naive.getWhitelisted());
      expect(error).toBeInstanceOf(RateBudgetError);
      expect((error as RateBudgetError).retryInSeconds).toBeGreaterThanOrEqual(60);
      expect(strict.count('GET', '/v1/api/whitelisted')).toBe(1);
      expect((await naive.budget()).blockedForSeconds).toBeGreaterThanOrEqual(60);
      await expect(naive.getBanks()).rejects.toBeInstanceOf(RateBudgetError);
      expect(strict.count('GET', '/v1/api/banks')).toBe(0);
    } finally {
      await naive.close();
      await strict.stop();
    }
  });
});
