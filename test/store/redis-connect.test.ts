// A Redis that does not answer stops start-up with a sentence naming where it looked, instead of
// leaving the bot hanging before it ever listens.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis.js';

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
});
