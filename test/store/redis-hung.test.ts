// A Redis that keeps the connection open and never answers (hung, or a network that drops everything
// without a reset) must not hold a lock's caller for ever: the wait for a lock ends with its `waitMs`,
// and work done under a lock is answered even when the lock's release gets no answer. The client's
// own command timeout cannot do this: it covers only commands still waiting to be written.
import { expect } from 'vitest';
import { clearStore, createStore, type Store, StoreErrorCode } from '../../src/store/index.js';
import { test as base } from '../support/fixtures.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';
import { TcpProxy } from '../support/tcp-proxy.js';

const hasRedis = await redisAvailable();

/** `hung`: a store on Redis through a proxy on 127.0.0.1 that a test freezes, and the proxy. */
const test = base.extend('hung', async ({ defer }) => {
  const proxy = await TcpProxy.forRedis(REDIS_URL);
  const warnings: string[] = [];
  const store: Store = await createStore(proxy.url, {
    prefix: testPrefix('redis-hung'),
    log: { warn: (message) => warnings.push(message) },
  });
  // Thawed before the close, so what the frozen connection held is answered and the close is clean.
  defer(async () => {
    proxy.thaw();
    await clearStore(store);
    await store.close();
    await proxy.stop();
  });
  return { store, proxy, warnings };
});

test.skipIf(!hasRedis)('a lock asked for while Redis hangs is given up after its wait', async ({ hung }) => {
  const { store, proxy } = hung;
  proxy.freeze();
  const ran: string[] = [];
  const error = await store
    .withLock('held', async () => ran.push('work'), { waitMs: 200 })
    .catch((e: unknown) => e as { code?: string });
  expect(error).toMatchObject({ code: StoreErrorCode.Timeout });
  expect(ran).toEqual([]);
});

test.skipIf(!hasRedis)(
  'work done under a lock is answered when Redis hangs before the release, and the release is logged',
  async ({ hung }) => {
    const { store, proxy, warnings } = hung;
    const result = await store.withLock('held', async () => {
      proxy.freeze(); // Redis stops answering once the work is done
      return 'saved';
    });
    expect(result).toBe('saved');
    expect(warnings).toEqual(['lock not released; it frees itself when its TTL runs out']);
  },
);
