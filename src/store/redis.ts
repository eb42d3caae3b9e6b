// redis://: keyv with @keyv/redis, so values sit where keyv puts them (`<namespace>::<key>`, keyv's
// serialization). What keyv lacks runs as native commands on the adapter's own node-redis client,
// under the same namespace, and is atomic across replicas: SET NX claims, compare-and-set writes and
// compare-and-delete, SET NX PX locks renewed while held and released by compare-and-delete, lists
// and sets.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import KeyvRedis from '@keyv/redis';
import type { RedisClientType } from '@redis/client';
import Keyv from 'keyv';
import { withinDeadline } from './deadline.js';
import type { RedisPersistence } from './durability.js';
import { LOCK_DEFAULTS, LockTimeoutError } from './errors.js';
import { readStored, withJsonSpeed } from './sqlite-values.js';
import type { LockOptions, Store, StoreClaim, StoreLog, StoreWrite } from './types.js';
import { scrubbed } from './url-credentials.js';
import { checkDistinctWrites } from './writes.js';

/** A Redis that does not answer within this stops start-up with a clear error instead of hanging. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Closing waits this long for commands under way before dropping the connection. */
const CLOSE_TIMEOUT_MS = 2_000;
/**
 * The client has no timeout on a command once it is written (its `timeout` option covers only commands
 * still queued), so a Redis that keeps the connection and never answers would hold a lock's caller for
 * ever. A try for a lock gets what is left of its wait, but at least this long, so a try with no wait
 * left (`waitMs: 0`) still gets its answer from a Redis that is only slow.
 */
const LOCK_TRY_MIN_MS = 1_000;
/** A lock's release waits this long for its answer; unanswered, the lock's TTL frees it. */
const RELEASE_TIMEOUT_MS = 2_000;

// Delete the key only if it still holds ARGV[1]: a lock we own (so an expired-and-retaken lock is never
// released by us), or a value compareAndDelete read.
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
// Push the lock's expiry out only while we still own it.
const RENEW_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
// Replace the value only if it is still exactly what was read (ARGV[3] = '1': only if still absent).
const SWAP_SCRIPT = `local current = redis.call('get', KEYS[1])
if (ARGV[3] == '1' and current == false) or (ARGV[3] == '0' and current == ARGV[1]) then
  redis.call('set', KEYS[1], ARGV[2])
  return 1
end
return 0`;

// claimAndWrite: SET NX the claim (KEYS[1], ARGV[1], PX ARGV[2] unless empty); only if that wins, each
// further KEYS[i] gets ARGV[3i-3] = set | nx | sadd with value ARGV[3i-2] and PX ARGV[3i-1] unless empty.
const CLAIM_AND_WRITE_SCRIPT = `local function put(key, value, ttl, nx)
  if ttl == '' then
    if nx then return redis.call('set', key, value, 'NX') end
    return redis.call('set', key, value)
  end
  if nx then return redis.call('set', key, value, 'NX', 'PX', ttl) end
  return redis.call('set', key, value, 'PX', ttl)
end
if not put(KEYS[1], ARGV[1], ARGV[2], true) then return 0 end
for i = 2, #KEYS do
  local op, value, ttl = ARGV[3 * i - 3], ARGV[3 * i - 2], ARGV[3 * i - 1]
  if op == 'sadd' then redis.call('sadd', KEYS[i], value) else put(KEYS[i], value, ttl, op == 'nx') end
end
return 1`;

/** `host:port` of STORE_URL, for messages: never the user or the password. */
function redisServer(url: string): string {
  try {
    const where = new URL(url);
    return `${where.hostname}:${where.port || 6379}`;
  } catch {
    return 'STORE_URL';
  }
}

/** Redis's answers to credentials it does not take (6 and later, then older): a refusal, not silence. */
const CREDENTIALS_REFUSED = /^(WRONGPASS|NOAUTH)\b|^ERR (AUTH\b|invalid password|Client sent AUTH)/;

function refusesCredentials(error: unknown): boolean {
  return error instanceof Error && CREDENTIALS_REFUSED.test(error.message);
}

/**
 * Connects, or throws a sentence that says why. The adapter replaces the driver's error with its own
 * after the whole connect wait, and the driver retries a refused AUTH like a lost connection: its
 * `error` events carry Redis's own answer, so a refusal stops the wait at once.
 */
async function connectOrSayWhy(adapter: KeyvRedis<unknown>, url: string): Promise<void> {
  const client = adapter.client as RedisClientType;
  let onError: (error: unknown) => void = () => {};
  const refused = new Promise<never>((_, reject) => {
    onError = (error) => {
      if (refusesCredentials(error)) reject(error);
    };
  });
  client.on('error', onError);
  const connecting = adapter.getClient();
  connecting.catch(() => undefined); // a refusal wins the race; the adapter's own failure then goes unread
  try {
    await Promise.race([connecting, refused]);
  } catch (error) {
    await adapter.disconnect(true).catch(() => undefined);
    const reason = scrubbed(error, url);
    throw new Error(
      refusesCredentials(error)
        ? `Redis at ${redisServer(url)} refused the credentials in STORE_URL (${reason})`
        : `Redis at ${redisServer(url)} did not answer (${reason}); check STORE_URL`,
    );
  } finally {
    client.off('error', onError);
  }
}

/** Reconnect after a lost connection: 100 ms doubling to 2 s, with jitter so replicas spread out. */
const reconnectDelay = (attempts: number) => Math.min(2 ** attempts * 100, 2_000) + Math.random() * 100;

export class RedisStore implements Store {
  readonly kind = 'redis' as const;

  static async connect(
    url: string,
    namespace: string,
    options: { connectTimeoutMs?: number; log?: StoreLog } = {},
  ): Promise<RedisStore> {
    // While the connection is down, commands fail at once instead of waiting in a queue to run
    // whenever Redis is back: a click or webhook told "not recorded" must not be recorded later.
    const client = { url, disableOfflineQueue: true, socket: { reconnectStrategy: reconnectDelay } };
    let adapter: KeyvRedis<unknown>;
    try {
      // The client parses the URL here, and its error would quote the URL, password and all.
      adapter = new KeyvRedis(client, {
        throwOnConnectError: true,
        throwOnErrors: true,
        connectionTimeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      });
    } catch (error) {
      throw new Error(
        `STORE_URL is not a Redis URL the client can read (${scrubbed(error, url)}): check its host, its port (1 to 65535) and that any special character of the password is percent-encoded`,
      );
    }
    const keyv = withJsonSpeed(new Keyv(adapter, { namespace, useKeyPrefix: false, throwOnErrors: true }));
    // The client reconnects by itself and emits an error per attempt; commands fail loudly meanwhile.
    keyv.on('error', () => {});
    await connectOrSayWhy(adapter, url); // fail at start-up, not on the first command
    return new RedisStore(keyv, adapter, namespace, options.log);
  }

  private constructor(
    private readonly keyv: Keyv,
    private readonly adapter: KeyvRedis<unknown>,
    private readonly namespace: string,
    private readonly log?: StoreLog,
  ) {}

  private get client(): RedisClientType {
    return this.adapter.client as RedisClientType;
  }

  /** The Redis key of `name`, exactly as the adapter would build it. */
  private redisKey(name: string): string {
    return this.adapter.createKeyPrefix(name, this.namespace);
  }

  // Reads judge expiry here, never through keyv's get: keyv deletes an entry it finds expired by key,
  // and the value read may have expired (and been claimed afresh by another replica) between Redis's
  // answer and this process's clock, so that delete would remove the new claim. Redis drops expired
  // keys by itself (each is written with its TTL).
  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.client.get(this.redisKey(key));
    return readStored<T>(raw, Date.now(), this.keyv.deserialize);
  }

  async getMany<T>(keys: string[]): Promise<Array<T | undefined>> {
    if (keys.length === 0) return [];
    const raws = await this.client.mGet(keys.map((key) => this.redisKey(key)));
    const now = Date.now();
    return Promise.all(raws.map((raw) => readStored<T>(raw, now, this.keyv.deserialize)));
  }

  async set<T>(key: string, value: T, ttlMs?: number): Promise<void> {
    await this.keyv.set(key, value, ttlMs);
  }

  delete(key: string): Promise<boolean> {
    return this.keyv.delete(key);
  }

  async setIfAbsent<T>(key: string, value: T, ttlMs?: number): Promise<boolean> {
    const serialize = this.keyv.serialize;
    if (!serialize) throw new Error('the Redis store needs keyv serialization');
    const stored = await serialize({ value, expires: ttlMs ? Date.now() + ttlMs : undefined });
    const options = ttlMs ? { NX: true as const, PX: ttlMs } : { NX: true as const };
    return (await this.client.set(this.redisKey(key), stored, options)) === 'OK';
  }

  async claimAndWrite(claim: StoreClaim, writes: StoreWrite[]): Promise<boolean> {
    checkDistinctWrites(claim, writes);
    const serialize = this.keyv.serialize;
    if (!serialize) throw new Error('the Redis store needs keyv serialization');
    const now = Date.now();
    const stored = async (value: unknown, ttlMs: number | undefined) =>
      serialize({ value, expires: ttlMs ? now + ttlMs : undefined });
    const keys = [this.redisKey(claim.key)];
    const args = [await stored(claim.value, claim.ttlMs), claim.ttlMs ? String(claim.ttlMs) : ''];
    for (const write of writes) {
      if (write.kind === 'addToSet') {
        keys.push(this.redisKey(`set:${write.set}`));
        args.push('sadd', write.member, '');
      } else {
        keys.push(this.redisKey(write.key));
        const ttl = write.ttlMs ? String(write.ttlMs) : '';
        args.push(write.kind === 'set' ? 'set' : 'nx', await stored(write.value, write.ttlMs), ttl);
      }
    }
    return (await this.client.eval(CLAIM_AND_WRITE_SCRIPT, { keys, arguments: args })) === 1;
  }

  async compareAndSet<T>(key: string, expected: T | undefined, next: T): Promise<boolean> {
    const { serialize, deserialize } = this.keyv;
    if (!serialize || !deserialize) throw new Error('the Redis store needs keyv serialization');
    const redisKey = this.redisKey(key);
    const raw = await this.client.get(redisKey);
    const current = raw === null ? undefined : (await deserialize<T>(raw))?.value;
    if (JSON.stringify(current) !== JSON.stringify(expected)) return false;
    const stored = await serialize({ value: next, expires: undefined });
    const args = [raw ?? '', stored, raw === null ? '1' : '0'];
    return (await this.client.eval(SWAP_SCRIPT, { keys: [redisKey], arguments: args })) === 1;
  }

  async compareAndDelete<T>(key: string, expected: T): Promise<boolean> {
    const redisKey = this.redisKey(key);
    const raw = await this.client.get(redisKey);
    if (raw === null) return false;
    const current = await readStored<T>(raw, Date.now(), this.keyv.deserialize);
    if (current === undefined || JSON.stringify(current) !== JSON.stringify(expected)) return false;
    // Deleted only while it still holds exactly the text read: a claim taken afresh since stays.
    return (await this.client.eval(RELEASE_SCRIPT, { keys: [redisKey], arguments: [raw] })) === 1;
  }

  async withLock<T>(name: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
    const { ttlMs, waitMs } = { ...LOCK_DEFAULTS, ...options };
    const key = this.redisKey(`lock:${name}`);
    const token = randomUUID();
    const deadline = Date.now() + waitMs;
    let pause = 2;
    // A try that got no answer in time may still take the lock: its TTL frees it, as a dead holder's.
    const tryLock = () =>
      withinDeadline(
        this.client.set(key, token, { NX: true, PX: ttlMs }),
        Math.max(deadline - Date.now(), LOCK_TRY_MIN_MS),
        `lock ${name}`,
      );
    while ((await tryLock()) !== 'OK') {
      if (Date.now() > deadline) throw new LockTimeoutError(`Timed out waiting for lock ${name}`);
      await sleep(pause + Math.random() * pause);
      pause = Math.min(pause * 2, 50);
    }
    // The TTL only bounds a holder that died: a live holder keeps the lock however long fn takes.
    const renewal = setInterval(() => {
      this.client.eval(RENEW_SCRIPT, { keys: [key], arguments: [token, String(ttlMs)] }).catch(() => {});
    }, ttlMs / 3);
    renewal.unref();
    try {
      return await fn();
    } finally {
      clearInterval(renewal);
      // What fn wrote is saved either way: a failed release must not report it as failed. The TTL
      // frees a lock that was never released.
      const release = this.client.eval(RELEASE_SCRIPT, { keys: [key], arguments: [token] });
      await withinDeadline(release, RELEASE_TIMEOUT_MS, `lock ${name}`).catch((error: unknown) => {
        this.log?.warn('lock not released; it frees itself when its TTL runs out', {
          lock: name,
          ttlMs,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }
  }

  appendToList<T>(list: string, value: T): Promise<number> {
    return this.client.rPush(this.redisKey(`list:${list}`), JSON.stringify(value));
  }

  async readList<T>(list: string, start: number, end: number): Promise<T[]> {
    const items = await this.client.lRange(this.redisKey(`list:${list}`), start, end);
    return items.map((item) => JSON.parse(item) as T);
  }

  listLength(list: string): Promise<number> {
    return this.client.lLen(this.redisKey(`list:${list}`));
  }

  async deleteList(list: string): Promise<void> {
    await this.client.del(this.redisKey(`list:${list}`));
  }

  async addToSet(set: string, member: string): Promise<void> {
    await this.client.sAdd(this.redisKey(`set:${set}`), member);
  }

  async removeFromSet(set: string, member: string): Promise<void> {
    await this.client.sRem(this.redisKey(`set:${set}`), member);
  }

  setMembers(set: string): Promise<string[]> {
    return this.client.sMembers(this.redisKey(`set:${set}`));
  }

  /** One pipeline of SMEMBERS: one round trip, each set read as by setMembers (no snapshot across them). */
  async setMembersMany(sets: string[]): Promise<string[][]> {
    if (sets.length === 0) return [];
    const pipeline = this.client.multi();
    for (const set of sets) pipeline.sMembers(this.redisKey(`set:${set}`));
    // A pipeline built in a loop is typed as any replies; an error reply rejects the whole pipeline,
    // so each reply is SMEMBERS's list, unless the client maps Redis's set type to something else.
    const replies: unknown[] = await pipeline.execAsPipeline();
    return replies.map((reply, i) => {
      if (!Array.isArray(reply))
        throw new TypeError(`Redis answered SMEMBERS of set ${sets[i]} with ${typeof reply}, not a list`);
      return reply as string[];
    });
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }

  /** Whether this Redis keeps its data across its own restart (see durability.ts). */
  async persistence(): Promise<RedisPersistence> {
    try {
      const { appendonly } = await this.client.configGet('appendonly');
      const { save } = await this.client.configGet('save');
      // An answer without the setting (a proxy, a Redis-compatible server) says nothing about it:
      // unreadable, not "off".
      if (appendonly === undefined || save === undefined) {
        const missing = [appendonly === undefined && 'appendonly', save === undefined && 'save'].filter(
          Boolean,
        );
        return { unreadable: `its answer did not include ${missing.join(' or ')}` };
      }
      return { appendonly, save };
    } catch (error) {
      return { unreadable: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Remove every key of this namespace, lists, sets and locks included (tests). */
  async clear(): Promise<void> {
    // keyv's own clear() only removes string keys; this takes every type.
    const match = `${this.redisKey('').replace(/[*?[\]\\]/g, '\\$&')}*`;
    for await (const keys of this.client.scanIterator({ MATCH: match, COUNT: 500 })) {
      const batch = Array.isArray(keys) ? keys : [keys];
      if (batch.length) await this.client.del(batch);
    }
  }

  /** Waits for commands under way, but not for a Redis that is gone: then the connection is dropped. */
  async close(): Promise<void> {
    if (!this.client.isReady) {
      await this.adapter.disconnect(true);
      return;
    }
    await withinDeadline(this.keyv.disconnect(), CLOSE_TIMEOUT_MS, 'redis close').catch(() =>
      this.adapter.disconnect(true),
    );
  }
}
