// A Redis read never deletes what it reads: a value found expired by this process's clock is read as
// absent and left for Redis to drop, so a claim another replica has just written over it survives.
import { createClient } from '@redis/client';
import { expect } from 'vitest';
import { clearStore, createStore } from '../../src/store/index.js';
import { test } from '../support/fixtures.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';

const hasRedis = await redisAvailable();

test.skipIf(!hasRedis)(
  'reads a value expired by its own clock as absent and leaves it in place',
  async ({ defer }) => {
    const prefix = testPrefix('reads');
    const store = await createStore(REDIS_URL, { prefix });
    const raw = createClient({ url: REDIS_URL });
    raw.on('error', () => {});
    await raw.connect();
    defer(async () => {
      await clearStore(store);
      await store.close();
      await raw.quit();
    });
    await store.set('claim', 'mine', 60_000);
    const [key] = await raw.keys(`*${prefix}*claim*`);
    if (!key) throw new Error('the claim was not written');
    // What a reader sees when the claim's time ran out between Redis's answer and its own clock: an
    // expiry already past on a key Redis still holds (as it would for the new claim written over it).
    await raw.set(key, JSON.stringify({ value: 'theirs', expires: Date.now() - 1_000 }));
    expect(await store.get('claim')).toBeUndefined();
    expect(await store.getMany(['claim'])).toEqual([undefined]);
    expect(await raw.exists(key)).toBe(1);
  },
);
