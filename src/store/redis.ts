// Redis primitives shared by every replica: locks, set-if-absent, lists and sets, all under one prefix.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@redis/client';

const connectClient = async (url: string) => {
  const client = createClient({ url });
  client.on('error', () => {}); // it reconnects by itself; commands fail loudly meanwhile
  await client.connect();
  return client;
};
type RedisClient = Awaited<ReturnType<typeof connectClient>>;

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

export const LOCK_DEFAULTS = { ttlMs: 15_000, waitMs: 10_000 };

// Delete the lock only if we still own it, so an expired-and-retaken lock is never released by us.
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export class RedisPrimitives {
  static async connect(url: string, prefix: string): Promise<RedisPrimitives> {
    return new RedisPrimitives(await connectClient(url), prefix);
  }

  private constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(kind: string, name: string): string {
    return `${this.prefix}:${kind}:${name}`;
  }

  get(key: string): Promise<string | null> {
    return this.client.get(this.key('kv', key));
  }

  async set(key: string, json: string, ttlMs?: number): Promise<void> {
    await this.client.set(this.key('kv', key), json, ttlMs ? { PX: ttlMs } : {});
  }

  async delete(key: string): Promise<boolean> {
    return (await this.client.del(this.key('kv', key))) > 0;
  }

  async setIfAbsent(key: string, json: string, ttlMs?: number): Promise<boolean> {
    const options = ttlMs ? { NX: true as const, PX: ttlMs } : { NX: true as const };
    return (await this.client.set(this.key('kv', key), json, options)) === 'OK';
  }

  async withLock<T>(
    name: string,
    fn: () => Promise<T>,
    options: { ttlMs?: number; waitMs?: number } = {},
  ): Promise<T> {
    const { ttlMs, waitMs } = { ...LOCK_DEFAULTS, ...options };
    const key = this.key('lock', name);
    const token = randomUUID();
    const deadline = Date.now() + waitMs;
    let pause = 2;
    while ((await this.client.set(key, token, { NX: true, PX: ttlMs })) !== 'OK') {
      if (Date.now() > deadline) throw new LockTimeoutError(`Timed out waiting for lock ${name}`);
      await sleep(pause + Math.random() * pause);
      pause = Math.min(pause * 2, 50);
    }
    try {
      return await fn();
    } finally {
      await this.client.eval(RELEASE_SCRIPT, { keys: [key], arguments: [token] });
    }
  }

  append(list: string, json: string): Promise<number> {
    return this.client.rPush(this.key('list', list), json);
  }

  range(list: string, start: number, end: number): Promise<string[]> {
    return this.client.lRange(this.key('list', list), start, end);
  }

  length(list: string): Promise<number> {
    return this.client.lLen(this.key('list', list));
  }

  async addToSet(set: string, member: string): Promise<void> {
    await this.client.sAdd(this.key('set', set), member);
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    await this.client.sRem(this.key('set', set), member);
  }

  members(set: string): Promise<string[]> {
    return this.client.sMembers(this.key('set', set));
  }

  async deleteAll(): Promise<void> {
    for await (const keys of this.client.scanIterator({ MATCH: `${this.prefix}:*`, COUNT: 500 })) {
      const batch = Array.isArray(keys) ? keys : [keys];
      if (batch.length) await this.client.del(batch);
    }
  }

  async close(): Promise<void> {
    await this.client.quit();
  }
}
