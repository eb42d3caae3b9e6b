// A Redis lock whose release fails after the work under it was saved (the connection dropped in
// between) does not turn the saved work into an error: the caller gets its result, the failed release
// is logged, and the lock's TTL frees it.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';

const hasRedis = await redisAvailable();

/** A TCP relay to Redis whose open connections the test can cut, as a network fault would. */
async function relay(): Promise<{ url: string; cut(): void; close(): Promise<void> }> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 6379) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(REDIS_URL);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

it.skipIf(!hasRedis)('returns what was saved under a lock whose release failed, and logs it', async () => {
  const prefix = testPrefix('lock-release');
  const network = await relay();
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const store = await createStore(network.url, {
    prefix,
    log: { warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }) },
  });
  const direct: Store = await createStore(REDIS_URL, { prefix });
  cleanup.push(async () => {
    await direct.delete('approval:1');
    await direct.close();
    await store.close();
    await network.close();
  });
  const result = await store.withLock('approval:1', async () => {
    await store.set('approval:1', { approvals: ['U1'] });
    network.cut(); // the connection drops before the lock is released
    return 'saved';
  });
  expect(result).toBe('saved');
  expect(await direct.get('approval:1')).toEqual({ approvals: ['U1'] });
  expect(warnings).toEqual([
    expect.objectContaining({ message: 'lock not released; it frees itself when its TTL runs out' }),
  ]);
});
