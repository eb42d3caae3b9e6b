// A PostgreSQL that does not answer stops start-up with a sentence naming where it looked, never the
// password, instead of leaving the bot hanging before it ever listens.
import { createServer, type Server, type Socket } from 'node:net';
import { describe, expect } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.js';
import { test } from '../support/fixtures.js';

/** A port nothing listens on: bound, read, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * `silentServer()`, a server that takes connections and never says a word, like a database hung or
 * half there, and gives its port; its connections are dropped and it is closed after the test.
 */
const it = test.extend('silentServer', ({ defer }) => {
  const servers: Server[] = [];
  const sockets: Socket[] = [];
  defer(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });
  return async (): Promise<number> => {
    const server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return address.port;
  };
});

describe('postgres store connection', () => {
  it('fails with a clear error naming host and port when nothing listens', async () => {
    const port = await freePort();
    await expect(
      PostgresStore.connect(`postgres://desk:secret@127.0.0.1:${port}/desk`, 'cngn-desk-test', {
        connectTimeoutMs: 300,
      }),
    ).rejects.toThrow(new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port} did not answer.*STORE_URL`));
  });

  it('gives up on a server that never answers, with host and port and without the password', async ({
    silentServer,
  }) => {
    const port = await silentServer();
    const error = await PostgresStore.connect(`postgresql://desk:hunter2@127.0.0.1:${port}/desk`, 'x', {
      connectTimeoutMs: 300,
    }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(
      new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port} did not answer`),
    );
    expect(String((error as Error).message)).not.toContain('hunter2');
    expect(String((error as Error).stack)).not.toContain('hunter2');
  });
});
