// A Redis that keeps nothing across its own restart would erase pending and approved requests, claims
// and the audit trail: with a live key the bot refuses to start on it, with test keys and the sandbox
// it warns; a Redis that forbids CONFIG GET (managed services) gets a warning, never a refusal.
import { randomBytes } from 'node:crypto';
import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import {
  checkStoreDurability,
  clearStore,
  createStore,
  type RedisPersistence,
  redisDurability,
  StoreDurabilityError,
} from '../../src/store/index.js';
import { startBot } from '../../src/wiring/bot.js';
import { test as base } from '../support/fixtures.js';
import { testConfig } from '../support/harness.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';
import { startRedisRelay } from '../support/redis-relay.js';

const hasRedis = await redisAvailable();

const none = { appendonly: 'no', save: '' };

/**
 * `redis`, once per file: the local Redis's persistence settings as CONFIG GET gives them, and a user
 * like a managed Redis gives (every command but CONFIG), removed after the file's last test.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const raw = createClient({ url: REDIS_URL });
    raw.on('error', () => {});
    const user = `cngn-desk-test-${process.pid}-${randomBytes(3).toString('hex')}`;
    const password = randomBytes(12).toString('hex');
    await raw.connect();
    onCleanup(async () => {
      await raw.sendCommand(['ACL', 'DELUSER', user]);
      await raw.quit();
    });
    const appendonly = (await raw.configGet('appendonly')).appendonly ?? '';
    const save = (await raw.configGet('save')).save ?? '';
    const settings: RedisPersistence = { appendonly, save };
    // A user like a managed Redis gives: every command but CONFIG.
    await raw.sendCommand(['ACL', 'SETUSER', user, 'on', `>${password}`, '~*', '&*', '+@all', '-@admin']);
    return { settings, user, password };
  });

describe('the verdict on Redis persistence', () => {
  it('refuses a Redis with neither an append-only file nor snapshots when the key is live', () => {
    const verdict = redisDurability(none, { live: true });
    expect(verdict.level).toBe('refuse');
    if (verdict.level === 'ok') return;
    expect(verdict.message).toContain(
      'a Redis restart would erase pending and approved requests, execution claims and the audit trail',
    );
    expect(verdict.message).toContain('`appendonly yes`');
    expect(verdict.message).toContain('Not starting with a live key');
  });

  it('only warns about the same Redis with test keys or the sandbox', () => {
    const verdict = redisDurability(none, { live: false });
    expect(verdict.level).toBe('warn');
    if (verdict.level === 'ok') return;
    expect(verdict.message).toContain('would erase pending and approved requests');
    expect(verdict.message).toContain('before going live');
  });

  it.each<[string, RedisPersistence]>([
    ['an append-only file', { appendonly: 'yes', save: '' }],
    ['snapshots', { appendonly: 'no', save: '3600 1 300 100 60 10000' }],
    ['both', { appendonly: 'yes', save: '3600 1' }],
  ])('accepts a Redis with %s, live or not', (_what, settings) => {
    expect(redisDurability(settings, { live: true })).toEqual({ level: 'ok' });
    expect(redisDurability(settings, { live: false })).toEqual({ level: 'ok' });
  });

  it('warns, never refuses, when CONFIG GET is not allowed', () => {
    const verdict = redisDurability({ unreadable: 'NOPERM' }, { live: true });
    expect(verdict.level).toBe('warn');
    if (verdict.level === 'ok') return;
    expect(verdict.message).toContain('managed Redis services often forbid it');
    expect(verdict.message).toContain('Make sure persistence is on');
  });
});

describe.skipIf(!hasRedis)('the check at start-up on a real Redis', () => {
  test('reads appendonly and save as CONFIG GET gives them', async ({ redis: { settings } }) => {
    const store = await createStore(REDIS_URL, { prefix: testPrefix('durability-read') });
    try {
      expect(await store.persistence?.()).toEqual(settings);
    } finally {
      await store.close();
    }
  });

  test('warns, and starts, when CONFIG GET answers without the setting (a proxy), even with a live key', async () => {
    // Asked for settings it does not know, Redis answers as such a proxy does: with nothing.
    const relay = await startRedisRelay((sent) =>
      Buffer.from(
        sent
          .toString('latin1')
          .replace('$10\r\nappendonly\r\n', '$10\r\nappendnone\r\n')
          .replace('$4\r\nsave\r\n', '$4\r\nsafe\r\n'),
        'latin1',
      ),
    );
    const store = await createStore(relay.url, { prefix: testPrefix('durability-proxy') });
    const warnings: string[] = [];
    try {
      await checkStoreDurability(store, { live: true, log: { warn: (m) => warnings.push(m) } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('Redis did not answer CONFIG GET');
    } finally {
      await store.close();
      await relay.close();
    }
  });

  test('warns, and starts, when this Redis forbids CONFIG GET, even with a live key', async ({
    redis: { user, password },
  }) => {
    const url = new URL(REDIS_URL);
    url.username = user;
    url.password = password;
    const store = await createStore(url.toString(), { prefix: testPrefix('durability-managed') });
    const warnings: string[] = [];
    try {
      await checkStoreDurability(store, { live: true, log: { warn: (m) => warnings.push(m) } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('Redis did not answer CONFIG GET');
    } finally {
      await clearStore(store);
      await store.close();
    }
  });

  test('refuses to start the bot with a live key on a Redis that keeps nothing, and closes the store', async ({
    redis: { settings },
  }) => {
    if (redisDurability(settings, { live: true }).level !== 'refuse') {
      console.warn('[notice] the local Redis keeps its data: the refusal on a real Redis is not exercised');
      return;
    }
    const config = testConfig('http://127.0.0.1:9/api/', {
      storeUrl: REDIS_URL,
      service: {
        mode: 'service',
        baseUrl: 'http://127.0.0.1:9',
        apiKey: `cngn_live_${randomBytes(8).toString('hex')}`,
        encryptionKey: 'unused',
        privateKey: 'unused',
      },
    });
    // startBot opens its own store from STORE_URL: the refusal comes before anything is written.
    const refusal = await startBot({ config, logger: silentLogger }).then(
      async (bot) => {
        await bot.stop();
        throw new Error('started');
      },
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StoreDurabilityError);
    expect(String((refusal as Error).message)).toContain('Not starting with a live key');
  });

  test('only warns, on a Redis that keeps nothing, with test keys and the sandbox', async ({
    redis: { settings },
  }) => {
    if (redisDurability(settings, { live: false }).level !== 'warn') {
      console.warn('[notice] the local Redis keeps its data: the warning on a real Redis is not exercised');
      return;
    }
    const store = await createStore(REDIS_URL, { prefix: testPrefix('durability-sandbox') });
    const warnings: string[] = [];
    try {
      await checkStoreDurability(store, { live: false, log: { warn: (m) => warnings.push(m) } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('Redis keeps nothing across a restart (appendonly no, save "")');
    } finally {
      await store.close();
    }
  });
});
