// What the stores write is keyv's own layout under our namespace, readable by a plain keyv.
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { clearStore, createStore } from '../../src/store/index.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';

const hasRedis = await redisAvailable();

describe.runIf(hasRedis)('redis store', () => {
  it("keeps everything under keyv's namespace, where a plain keyv reads the values", async () => {
    const prefix = testPrefix('layout');
    const store = await createStore(REDIS_URL, { prefix });
    const adapter = new KeyvRedis(REDIS_URL);
    const plain = new Keyv(adapter, { namespace: prefix, useKeyPrefix: false });
    try {
      await store.set('value', { n: 1 });
      await store.setIfAbsent('claim', { owner: 'a' }, 60_000);
      await store.appendToList('audit', { i: 1 });
      await store.addToSet('open', 'r1');
      expect(await plain.get('value')).toEqual({ n: 1 });
      expect(await plain.get('claim')).toEqual({ owner: 'a' });
      const client = await adapter.getClient();
      const keys = (await client.keys(`${prefix}*`)).sort();
      expect(keys).toEqual(
        [`${prefix}::claim`, `${prefix}::list:audit`, `${prefix}::set:open`, `${prefix}::value`].sort(),
      );
      await clearStore(store);
      expect(await client.keys(`${prefix}*`)).toEqual([]);
    } finally {
      await plain.disconnect();
      await store.close();
    }
  });
});
