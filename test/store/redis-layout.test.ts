// Keys of the Redis layout before keyv are never read by this version, so a store that still holds
// them refuses to start, saying what it found and what to do, instead of silently losing approvals,
// the audit trail, queued alerts and dedupe records.
import { createClient } from '@redis/client';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clearStore, createStore } from '../../src/store/index.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';

const hasRedis = await redisAvailable();
const raw = createClient({ url: REDIS_URL });
raw.on('error', () => {});
const written: string[] = [];

beforeAll(async () => {
  if (hasRedis) await raw.connect();
  return async () => {
    if (raw.isOpen) await raw.quit();
  };
});

afterEach(async () => {
  if (written.length) await raw.del(written.splice(0));
});

/** Keys as the previous version wrote them: JSON values at `:kv:`, a list and a set. */
async function writeOldLayout(prefix: string): Promise<void> {
  written.push(`${prefix}:kv:approval:AR-1`, `${prefix}:list:audit`, `${prefix}:set:approvals:open`);
  await raw.set(`${prefix}:kv:approval:AR-1`, JSON.stringify({ id: 'AR-1', state: 'approved' }));
  await raw.rPush(`${prefix}:list:audit`, JSON.stringify({ action: 'approved' }));
  await raw.sAdd(`${prefix}:set:approvals:open`, 'AR-1');
}

describe.skipIf(!hasRedis)('redis store over keys of the layout before keyv', () => {
  it('refuses to start, naming what it found and how to clear it', async () => {
    const prefix = testPrefix('old-layout');
    await writeOldLayout(prefix);
    const refusal = await createStore(REDIS_URL, { prefix }).then(
      async (store) => {
        await store.close();
        throw new Error('started beside keys of the old layout');
      },
      (error: unknown) => error as Error,
    );
    expect(refusal.name).toBe('OldRedisLayoutError');
    expect(refusal.message).toContain(`${prefix}:kv:approval:AR-1`);
    expect(refusal.message).toContain(
      'let the previous version finish its pending approvals and queued alerts',
    );
    expect(refusal.message).toContain(`delete the keys matching ${prefix}:kv:*, ${prefix}:list:*`);
  });

  it('starts once the old keys are deleted', async () => {
    const prefix = testPrefix('old-layout-cleared');
    await writeOldLayout(prefix);
    await expect(createStore(REDIS_URL, { prefix })).rejects.toThrow(/before this version/);
    await raw.del(written.splice(0));
    const store = await createStore(REDIS_URL, { prefix });
    await store.close();
  });

  it('starts beside its own keys and those of a namespace that merely begins with its name', async () => {
    const prefix = testPrefix('new-layout');
    const first = await createStore(REDIS_URL, { prefix });
    const staging = await createStore(REDIS_URL, { prefix: `${prefix}:staging` });
    await first.set('approval:AR-1', { id: 'AR-1' });
    await first.appendToList('audit', { action: 'approved' });
    await staging.set('kv', 1);
    await staging.addToSet('set', 'x');
    await first.close();
    await staging.close();
    const again = await createStore(REDIS_URL, { prefix });
    try {
      expect(await again.get('approval:AR-1')).toEqual({ id: 'AR-1' });
    } finally {
      await clearStore(again);
      await again.close();
      const cleanup = await createStore(REDIS_URL, { prefix: `${prefix}:staging` });
      await clearStore(cleanup);
      await cleanup.close();
    }
  });
});
