// Each undici timeout surfaces as a clear error saying whether the request may have been received:
// a connection never made (a silent peer where TLS is expected) and an answer that stops half-way; a
// read whose signal fires ends at once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import { test as base, describe, expect } from 'vitest';
import { type CngnClient, createCngnClient } from '../../src/cngn/client.js';
import { CngnTransportError } from '../../src/cngn/errors.js';
import { generateOpenSshKeyPair } from '../../src/cngn/wire.js';
import { Money } from '../../src/format/money.js';
import { createStore } from '../../src/store/index.js';

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const privateKey = generateOpenSshKeyPair().privateKey;

async function openClient(baseUrl: string, timeouts: { connectMs?: number; bodyMs?: number }) {
  const client = createCngnClient({
    baseUrl,
    apiKey: 'cngn_test_timeouts',
    encryptionKey: 'k',
    privateKey,
    store: await createStore('memory://', { prefix: `timeouts-${Math.random()}` }),
    rateLimit: { limit: 1000, windowSeconds: 60 },
    retry: { attempts: 1 },
    timeouts,
  });
  return client;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

/**
 * `silent` accepts TCP connections and never says a word, so a TLS handshake never completes;
 * `stalling` sends headers and the start of a body, then nothing more (`received` counts requests).
 * One of each for the file. `clientAt(baseUrl, timeouts)` opens a client closed after the test.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('silent', { scope: 'file' }, async ({}, { onCleanup }) => {
    const silentSockets = new Set<Socket>();
    const silent: TcpServer = createTcpServer((socket) => {
      silentSockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => silentSockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    onCleanup(async () => {
      for (const socket of silentSockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    return silent;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('stalling', { scope: 'file' }, async ({}, { onCleanup }) => {
    const stalling = { server: undefined as unknown as Server, received: 0 };
    stalling.server = createServer((req, res) => {
      stalling.received += 1;
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":200,"message":"ok","data":"');
    });
    await new Promise<void>((resolve) => stalling.server.listen(0, '127.0.0.1', resolve));
    onCleanup(async () => {
      stalling.server.closeAllConnections();
      await new Promise<void>((resolve) => stalling.server.close(() => resolve()));
    });
    return stalling;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('clientAt', async ({}, { onCleanup }) => {
    const opened: CngnClient[] = [];
    onCleanup(async () => {
      await Promise.all(opened.splice(0).map((c) => c.close()));
    });
    return async (baseUrl: string, timeouts: { connectMs?: number; bodyMs?: number }) => {
      const client = await openClient(baseUrl, timeouts);
      opened.push(client);
      return client;
    };
  });

const portOf = (server: TcpServer | Server) => (server.address() as AddressInfo).port;

describe('connect timeout', () => {
  test('says a read could not connect in time and that nothing was sent', async ({ silent, clientAt }) => {
    const client = await clientAt(`https://127.0.0.1:${portOf(silent)}`, { connectMs: 100 });
    const error = await failure(client.getTransactions());
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: false, endpoint: 'GET /v1/api/transactions' });
    expect((error as Error).message).toBe(
      'GET /v1/api/transactions: could not connect in time; nothing was sent',
    );
  });

  test('tells the caller a withdrawal that could not connect was not sent, so it may be filed again', async ({
    silent,
    clientAt,
  }) => {
    const client = await clientAt(`https://127.0.0.1:${portOf(silent)}`, { connectMs: 100 });
    const error = await failure(
      client.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: 'n' }),
    );
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: false, endpoint: 'POST /v1/api/withdraw' });
    expect((error as Error).message).toMatch(/could not connect in time; nothing was sent$/);
  });
});

describe('body timeout', () => {
  test('says the answer stopped arriving, and a withdrawal cut off that way may have gone through', async ({
    stalling,
    clientAt,
  }) => {
    const client = await clientAt(`http://127.0.0.1:${portOf(stalling.server)}`, { bodyMs: 100 });
    const before = stalling.received;
    const error = await failure(
      client.withdraw({ amount: Money.parse('10'), address: ADDRESS, networkId: 'n' }),
    );
    expect(error).toBeInstanceOf(CngnTransportError);
    expect(error).toMatchObject({ mayHaveBeenSent: true, endpoint: 'POST /v1/api/withdraw' });
    expect((error as Error).message).toBe(
      'POST /v1/api/withdraw: the answer stopped arriving; the outcome is unknown',
    );
    expect(stalling.received - before).toBe(1);
  });

  test('says the same for a read once its attempts are spent', async ({ stalling, clientAt }) => {
    const client = await clientAt(`http://127.0.0.1:${portOf(stalling.server)}`, { bodyMs: 100 });
    const error = await failure(client.getBanks());
    expect(error).toBeInstanceOf(CngnTransportError);
    expect((error as Error).message).toBe(
      'GET /v1/api/banks: the answer stopped arriving; the outcome is unknown',
    );
  });
});

describe('a read given a signal (a report at its cut)', () => {
  test('ends at once with the signal’s reason while its answer is still arriving', async ({
    stalling,
    clientAt,
  }) => {
    const client = await clientAt(`http://127.0.0.1:${portOf(stalling.server)}`, { bodyMs: 600_000 });
    const before = stalling.received;
    const arrived = new Promise<void>((resolve) => stalling.server.once('request', () => resolve()));
    const cut = new AbortController();
    const reading = failure(client.getTransactions({ priority: 'report', signal: cut.signal }));
    await arrived;
    cut.abort(new Error('the report took too long'));
    expect(await reading).toMatchObject({ message: 'the report took too long' });
    expect(stalling.received - before).toBe(1);
  });
});
