// Envelopes that do not say success are errors whatever the HTTP status, and an error never turns
// into an empty list (let alone a cached one). A stub service on 127.0.0.1 answers each request
// with the next queued body.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CngnClient, createCngnClient } from '../../src/cngn/client.js';
import { CngnError } from '../../src/cngn/errors.js';
import {
  curvePublicFromEd25519,
  generateOpenSshKeyPair,
  parseOpenSshPrivateKey,
  sealResponseData,
} from '../../src/cngn/wire.js';
import { createStore, type Store } from '../../src/store/index.js';

const keys = generateOpenSshKeyPair();
const curvePublic = await curvePublicFromEd25519(parseOpenSshPrivateKey(keys.privateKey).publicKey);
const sealed = (value: unknown) => sealResponseData(JSON.stringify(value), curvePublic);

let server: Server;
let baseUrl: string;
const answers: Array<{ status: number; body: string }> = [];
let served = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    served += 1;
    const next = answers.shift() ?? { status: 500, body: '{"status":500,"message":"nothing queued"}' };
    res.writeHead(next.status, { 'content-type': 'application/json' });
    res.end(next.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

let store: Store;
let client: CngnClient;
beforeEach(async () => {
  answers.length = 0;
  store = await createStore('memory://', { prefix: `envelopes-${Math.random()}` });
  client = createCngnClient({
    baseUrl,
    apiKey: 'cngn_test_envelopes',
    encryptionKey: 'k',
    privateKey: keys.privateKey,
    store,
    rateLimit: { limit: 1000, windowSeconds: 60 },
    retry: { attempts: 1 },
  });
  return async () => {
    await client.close();
    await store.close();
  };
});

const answer = (status: number, body: unknown) => answers.push({ status, body: JSON.stringify(body) });
const BANKS = [{ name: 'Access Bank', code: '044' }];

describe('an answer without a success status', () => {
  it('reads HTTP 200 with the older `{error}` shape as a CngnError, and caches nothing', async () => {
    answer(200, { error: 'Invalid request' });
    const error = await client.getBanks().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CngnError);
    expect(error).toMatchObject({ serviceMessage: 'Invalid request', endpoint: 'GET /v1/api/banks' });
    answer(200, { status: 200, message: 'ok', data: sealed(BANKS) });
    expect(await client.getBanks()).toEqual(BANKS);
    expect(served).toBeGreaterThanOrEqual(2);
  });

  it('reads HTTP 200 with only a message as a CngnError for networks too', async () => {
    answer(200, { message: 'Unauthorized' });
    await expect(client.getNetworks()).rejects.toMatchObject({
      name: 'CngnError',
      serviceMessage: 'Unauthorized',
      endpoint: 'GET /v1/api/networks',
    });
    const networks = [{ id: 'n1', name: 'Base', short_name: 'base', isDisabled: false, blockchain: null }];
    answer(200, { status: 200, message: 'ok', data: networks });
    expect((await client.resolveNetwork('base'))?.id).toBe('n1');
  });

  it('reads an empty object as a CngnError rather than an empty list', async () => {
    answer(200, {});
    await expect(client.getWhitelisted()).rejects.toBeInstanceOf(CngnError);
  });

  it('still gives an empty list when the envelope says success without data', async () => {
    answer(200, { status: 200, message: 'Fetched' });
    expect(await client.getWhitelisted()).toEqual([]);
    answer(200, { message: 'Fetched', data: null });
    expect(await client.getWhitelisted()).toEqual([]);
  });

  it('does not keep an empty bank list: the next call asks again', async () => {
    answer(200, { status: 200, message: 'ok', data: [] });
    expect(await client.getBanks()).toEqual([]);
    answer(200, { status: 200, message: 'ok', data: BANKS });
    expect(await client.getBanks()).toEqual(BANKS);
  });
});
