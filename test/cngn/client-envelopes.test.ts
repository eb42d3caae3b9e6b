// Envelopes that do not say success are errors whatever the HTTP status, and an error never turns
// into an empty list (let alone a cached one). A stub service on 127.0.0.1 answers each request
// with the next queued body.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test as base, describe, expect } from 'vitest';
import { createCngnClient } from '../../src/cngn/client.js';
import { CngnError } from '../../src/cngn/errors.js';
import {
  curvePublicFromEd25519,
  generateOpenSshKeyPair,
  parseOpenSshPrivateKey,
  sealResponseData,
} from '../../src/cngn/wire.js';
import { createStore } from '../../src/store/index.js';

const keys = generateOpenSshKeyPair();
const curvePublic = await curvePublicFromEd25519(parseOpenSshPrivateKey(keys.privateKey).publicKey);
const sealed = (value: unknown) => sealResponseData(JSON.stringify(value), curvePublic);

/** The stub service: its address, the bodies queued for it, and how many requests it has served. */
interface StubService {
  baseUrl: string;
  answers: Array<{ status: number; body: string }>;
  served: number;
}

/** `service`, one stub for the file; `client`, a client of the test's own on it, with nothing queued. */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('service', { scope: 'file' }, async ({}, { onCleanup }) => {
    const service: StubService = { baseUrl: '', answers: [], served: 0 };
    const server: Server = createServer((_req, res) => {
      service.served += 1;
      const next = service.answers.shift() ?? {
        status: 500,
        body: '{"status":500,"message":"nothing queued"}',
      };
      res.writeHead(next.status, { 'content-type': 'application/json' });
      res.end(next.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    service.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return service;
  })
  .extend('client', async ({ service }, { onCleanup }) => {
    service.answers.length = 0;
    const store = await createStore('memory://', { prefix: `envelopes-${Math.random()}` });
    const client = createCngnClient({
      baseUrl: service.baseUrl,
      apiKey: 'cngn_test_envelopes',
      encryptionKey: 'k',
      privateKey: keys.privateKey,
      store,
      rateLimit: { limit: 1000, windowSeconds: 60 },
      retry: { attempts: 1 },
    });
    onCleanup(async () => {
      await client.close();
      await store.close();
    });
    return client;
  });

const answer = (service: StubService, status: number, body: unknown) =>
  service.answers.push({ status, body: JSON.stringify(body) });
const BANKS = [{ name: 'Access Bank', code: '044' }];

describe('an answer without a success status', () => {
  test('reads HTTP 200 with the older `{error}` shape as a CngnError, and caches nothing', async ({
    service,
    client,
  }) => {
    answer(service, 200, { error: 'Invalid request' });
    const error = await client.getBanks().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CngnError);
    expect(error).toMatchObject({ serviceMessage: 'Invalid request', endpoint: 'GET /v1/api/banks' });
    answer(service, 200, { status: 200, message: 'ok', data: sealed(BANKS) });
    expect(await client.getBanks()).toEqual(BANKS);
    expect(service.served).toBeGreaterThanOrEqual(2);
  });

  test('reads HTTP 200 with only a message as a CngnError for networks too', async ({ service, client }) => {
    answer(service, 200, { message: 'Unauthorized' });
    await expect(client.getNetworks()).rejects.toMatchObject({
      name: 'CngnError',
      serviceMessage: 'Unauthorized',
      endpoint: 'GET /v1/api/networks',
    });
    const networks = [{ id: 'n1', name: 'Base', short_name: 'base', isDisabled: false, blockchain: null }];
    answer(service, 200, { status: 200, message: 'ok', data: networks });
    expect((await client.resolveNetwork('base'))?.id).toBe('n1');
  });

  test('reads an empty object as a CngnError rather than an empty list', async ({ service, client }) => {
    answer(service, 200, {});
    await expect(client.getWhitelisted()).rejects.toBeInstanceOf(CngnError);
  });

  test('still gives an empty list when the envelope says success without data', async ({
    service,
    client,
  }) => {
    answer(service, 200, { status: 200, message: 'Fetched' });
    expect(await client.getWhitelisted()).toEqual([]);
    answer(service, 200, { message: 'Fetched', data: null });
    expect(await client.getWhitelisted()).toEqual([]);
  });

  test('does not keep an empty bank list: the next call asks again', async ({ service, client }) => {
    answer(service, 200, { status: 200, message: 'ok', data: [] });
    expect(await client.getBanks()).toEqual([]);
    answer(service, 200, { status: 200, message: 'ok', data: BANKS });
    expect(await client.getBanks()).toEqual(BANKS);
  });

  test('keeps a long refusal message short, saying it was cut: it becomes a stored failure reason', async ({
    service,
    client,
  }) => {
    const long = `Invalid request: ${'<'.repeat(3000)}`;
    answer(service, 400, { status: 400, message: long });
    const error = (await client.getBanks().catch((e: unknown) => e)) as CngnError;
    expect(error).toBeInstanceOf(CngnError);
    expect(error.serviceMessage).toBe(`${long.slice(0, 300)}… (cut, ${long.length} characters)`);
  });

  test('never cuts a refusal message between the halves of an emoji', async ({ service, client }) => {
    const long = `${'x'.repeat(299)}💸${'y'.repeat(100)}`;
    answer(service, 400, { status: 400, message: long });
    const error = (await client.getBanks().catch((e: unknown) => e)) as CngnError;
    expect(error.serviceMessage).toBe(`${'x'.repeat(299)}… (cut, ${long.length} characters)`);
  });
});
