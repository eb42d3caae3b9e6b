// A Redis lock whose release fails after the work under it was saved (the connection dropped in
// between) does not turn the saved work into an error: the caller gets its result, the failed release
// is logged, and the lock's TTL frees it.
import { expect } from 'vitest';
import { createStore, type Store } from '../../src/store/index.js';
import { test } from '../support/fixtures.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';
import { startRedisRelay } from '../support/redis-relay.js';

const hasRedis = await redisAvailable();

test.skipIf(!hasRedis)(
  'returns what was saved under a lock whose release failed, and logs it',
  async ({ defer }) => {
    const prefix = testPrefix('lock-release');
    const network = await startRedisRelay();
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const store = await createStore(network.url, {
      prefix,
      log: { warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }) },
    });
    const direct: Store = await createStore(REDIS_URL, { prefix });
    defer(async () => {
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
  },
);
