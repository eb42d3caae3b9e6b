import { setTimeout as sleep } from 'node:timers/promises';
import { test as base, describe, expect } from 'vitest';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { RawClient } from './raw-client.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const TOO_MANY = { status: 429, message: 'Too many requests. Please try again later.' };

/**
 * `boot(options)` starts a sandbox with a raw client on it; it is stopped after the test (stopping
 * twice is harmless, for tests that stop it themselves).
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('boot', async ({}, { onCleanup }) => {
    const started: Sandbox[] = [];
    onCleanup(async () => {
      for (const sandbox of started) await sandbox.stop();
    });
    return async (options: SandboxOptions = {}) => {
      const sandbox = await startSandbox({ settleDelayMs: 600_000, ...options });
      started.push(sandbox);
      const client = new RawClient(
        sandbox.baseUrl,
        sandbox.apiKey,
        sandbox.encryptionKey,
        sandbox.privateKey,
      );
      return { sandbox, client };
    };
  });

describe('rate limit', () => {
  test('the 21st request in a window is refused and the key is blocked, even for calls that would succeed', async ({
    boot,
  }) => {
    const { sandbox, client } = await boot();
    for (let i = 0; i < 20; i++) expect((await client.get('/v1/api/balance')).httpStatus).toBe(200);
    const refused = await fetch(`${sandbox.baseUrl}/v1/api/balance`, {
      headers: { authorization: `Bearer ${sandbox.apiKey}` },
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(await refused.json()).toEqual(TOO_MANY);
    const blocked = await client.get('/v1/api/networks');
    expect(blocked.envelope).toEqual(TOO_MANY);
  });

  test('counts failed requests too, per key', async ({ boot }) => {
    const { client } = await boot({ rateLimit: { limit: 3, windowMs: 60_000, blockMs: 60_000 } });
    await client.get('/v1/api/transactions/NOPE'); // 400, still counted
    await client.get('/v1/api/nowhere'); // 404, still counted
    expect((await client.get('/v1/api/balance')).httpStatus).toBe(200);
    expect((await client.get('/v1/api/balance')).envelope).toEqual(TOO_MANY);
    // Another key has its own budget (and is then refused for being unknown).
    const other = await client.get('/v1/api/balance', { authorization: 'Bearer cngn_test_someone_else' });
    expect(other.envelope).toEqual({ status: 400, message: 'Merchant not found' });
  });

  test('lets the key through again once the block is over', async ({ boot }) => {
    const { client } = await boot({ rateLimit: { limit: 2, windowMs: 60_000, blockMs: 50 } });
    await client.get('/v1/api/balance');
    await client.get('/v1/api/balance');
    expect((await client.get('/v1/api/balance')).httpStatus).toBe(429);
    await sleep(80);
    expect((await client.get('/v1/api/balance')).httpStatus).toBe(200);
  });

  test('can be switched off', async ({ boot }) => {
    const { client } = await boot({ rateLimit: false });
    const answers = await Promise.all(Array.from({ length: 40 }, () => client.get('/v1/api/banks')));
    expect(answers.every((a) => a.httpStatus === 200)).toBe(true);
  });
});

describe('fault injection', () => {
  test('failNext answers the status without processing, then behaves again', async ({ boot }) => {
    const { sandbox: s, client } = await boot({ rateLimit: false });
    s.failNext('GET', '/v1/api/balance', 503, 2);
    expect((await client.get('/v1/api/balance')).envelope).toEqual({
      status: 503,
      message: 'Internal server error',
    });
    expect((await client.get('/v1/api/balance')).httpStatus).toBe(503);
    expect((await client.get('/v1/api/balance')).httpStatus).toBe(200);
    expect(s.count('GET', '/v1/api/balance')).toBe(3);

    const networks = await client.get<Array<{ id: string }>>('/v1/api/networks');
    s.failNext('POST', '/v1/api/withdraw', 502, 1, 'Bad gateway');
    const failed = await client.post('/v1/api/withdraw', {
      amount: 10,
      address: ADDRESS,
      networkId: networks.data[0]?.id,
    });
    expect(failed.envelope).toEqual({ status: 502, message: 'Bad gateway' });
    expect(s.balance()).toBe('1250000.00');
    expect(s.requests.at(-1)?.plainBody).toEqual({
      amount: 10,
      address: ADDRESS,
      networkId: networks.data[0]?.id,
    });
  });

  test('failNext can add headers such as Retry-After', async ({ boot }) => {
    const { sandbox: s } = await boot({ rateLimit: false });
    s.failNext('GET', '/v1/api/banks', 429, 1, undefined, { 'retry-after': '2' });
    const response = await fetch(`${s.baseUrl}/v1/api/banks`, {
      headers: { authorization: `Bearer ${s.apiKey}` },
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual(TOO_MANY);
  });

  test('resetNext cuts the connection without processing', async ({ boot }) => {
    const { sandbox: s, client } = await boot({ rateLimit: false });
    const networks = await client.get<Array<{ id: string }>>('/v1/api/networks');
    s.resetNext('POST', '/v1/api/withdraw');
    await expect(
      client.post('/v1/api/withdraw', { amount: 10, address: ADDRESS, networkId: networks.data[0]?.id }),
    ).rejects.toThrow();
    expect(s.balance()).toBe('1250000.00');
    expect(s.count('POST', '/v1/api/withdraw')).toBe(1);
    expect(s.requests.at(-1)?.status).toBe(0);
  });

  test('hold processes nothing until released', async ({ boot }) => {
    const { sandbox: s, client } = await boot({ rateLimit: false });
    const held = s.hold('GET', '/v1/api/balance');
    let answered = false;
    const call = client.get('/v1/api/balance').then((a) => {
      answered = true;
      return a;
    });
    await held.arrived;
    // Another route is served while the balance call is held.
    expect((await client.get('/v1/api/banks')).httpStatus).toBe(200);
    expect(answered).toBe(false);
    expect(s.requests.find((r) => r.path === '/v1/api/balance')?.status).toBe(0);
    held.release();
    expect((await call).httpStatus).toBe(200);
  });

  test('dropResponse processes the request but never answers', async ({ boot }) => {
    const { sandbox: s, client } = await boot({ rateLimit: false });
    const networks = await client.get<Array<{ id: string }>>('/v1/api/networks');
    s.dropResponse('POST', '/v1/api/withdraw');
    await expect(
      client.post('/v1/api/withdraw', { amount: 125, address: ADDRESS, networkId: networks.data[0]?.id }),
    ).rejects.toThrow();
    expect(s.balance()).toBe('1249875.00');
    const page = await client.get<{
      data: Array<{ amount: string; status: string; receiver: { address: string } }>;
    }>('/v1/api/transactions?limit=1');
    expect(page.data.data[0]).toMatchObject({
      amount: '125.00',
      status: 'pending',
      receiver: { address: ADDRESS },
    });
    // The next call is answered normally.
    expect((await client.get('/v1/api/balance')).httpStatus).toBe(200);
  });

  test('stop() clears settlement timers and closes the server', async ({ boot }) => {
    // Other timers (HTTP keep-alive from earlier tests) come and go on their own: count only the drop.
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const { sandbox: s, client } = await boot({ rateLimit: false, settleDelayMs: 3_600_000 });
    const networks = await client.get<Array<{ id: string }>>('/v1/api/networks');
    for (const amount of [10, 20, 30]) {
      await client.post('/v1/api/withdraw', { amount, address: ADDRESS, networkId: networks.data[0]?.id });
    }
    const timersWhilePending = timers();
    await s.stop();
    expect(timersWhilePending - timers()).toBeGreaterThanOrEqual(3);
    await expect(fetch(`${s.baseUrl}/v1/api/balance`)).rejects.toThrow();
  });

  test('stop() releases held requests', async ({ boot }) => {
    const { sandbox: s, client } = await boot({ rateLimit: false, settleDelayMs: 3_600_000 });
    const networks = await client.get<Array<{ id: string }>>('/v1/api/networks');
    await client.post('/v1/api/withdraw', { amount: 10, address: ADDRESS, networkId: networks.data[0]?.id });
    const held = s.hold('GET', '/v1/api/balance');
    const call = client.get('/v1/api/balance').catch((error: unknown) => error);
    await held.arrived;
    await s.stop();
    await call;
  });
});
