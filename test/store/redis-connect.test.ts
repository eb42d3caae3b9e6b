// A Redis that does not answer stops start-up with a sentence naming where it looked, instead of
// leaving the bot hanging before it ever listens.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis.js';
import { REDIS_URL, redisAvailable } from '../support/redis.js';

const hasRedis = await redisAvailable();

/** REDIS_URL with credentials this Redis does not take (the test Redis asks for no password). */
function withWrongCredentials(username: string): string {
  const url = new URL(REDIS_URL);
  url.username = username;
  url.password = 'W7ong-pa55';
  return url.toString();
}

/** A port nothing listens on: bound, read, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('redis store connection', () => {
  it('fails with a clear error when nothing answers', async () => {
    const port = await freePort();
    await expect(
      RedisStore.connect(`redis://:secret@127.0.0.1:${port}`, 'cngn-desk-test', { connectTimeoutMs: 200 }),
    ).rejects.toThrow(new RegExp(`Redis at 127\\.0\\.0\\.1:${port} did not answer.*STORE_URL`));
  });

  it('never puts the password of STORE_URL in the error', async () => {
    const port = await freePort();
    const error = await RedisStore.connect(`redis://:hunter2@127.0.0.1:${port}`, 'x', {
      connectTimeoutMs: 200,
    }).catch((e: unknown) => e as Error);
    expect(String((error as Error).message)).not.toContain('hunter2');
  });

  it('names a STORE_URL the client cannot read without its password or the URL itself', async () => {
    const url = 'redis://desk:s3cretpass@127.0.0.1:99999';
    const error = await RedisStore.connect(url, 'x', { connectTimeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^STORE_URL is not a Redis URL the client can read .*port/);
    // Every field pino's serializer would write (Node's TypeError carries the URL in `input`).
    const fields = JSON.stringify({ ...(error as Error), message: (error as Error).message });
    expect(`${fields} ${(error as Error).stack}`).not.toMatch(/s3cretpass|desk:/);
  });

  // Redis answers a wrong password at once; the message must say so, not send anyone to the network.
  it.skipIf(!hasRedis).each([
    ['a user it does not know', 'desk'],
    ['a password it was never given', ''],
  ])('says Redis refused the credentials when it refuses %s', async (_, username) => {
    const url = withWrongCredentials(username);
    const error = await RedisStore.connect(url, 'cngn-desk-test', { connectTimeoutMs: 5_000 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(Error);
    const { hostname, port } = new URL(REDIS_URL);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^Redis at ${hostname.replace(/\./g, '\\.')}:${port || 6379} refused the credentials in STORE_URL`,
      ),
    );
    expect((error as Error).message).not.toMatch(/did not answer|W7ong-pa55/);
  });
});
