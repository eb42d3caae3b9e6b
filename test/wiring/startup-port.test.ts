// A workbench started on PORT=0 probes a free port first (its signing URL needs the port before the bot
// listens); another process can take that port in between, and the start then tries another.
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { expect } from 'vitest';
import { createLogger } from '../../src/log.js';
import { start } from '../../src/wiring/startup.js';
import { freePort } from '../slack/approvals/support.js';
import { capturedLog } from '../support/captured-log.js';
import { test as it } from '../support/fixtures.js';

it('starts on another port when the probed one is taken before the bot listens', async ({ defer }) => {
  const taken = await squatted(defer);
  let probes = 0;
  const { logger, entries } = capturedLog('info');
  const started = await start(
    { PORT: '0', ADMIN_PORT: '0', STORE_URL: 'memory://' },
    {
      print: () => undefined,
      logger: () => logger,
      // The first probe answers the port the squatter holds, as a lost race would.
      freePort: async () => (++probes === 1 ? taken : freePort()),
    },
  );
  defer(() => started.stop());
  expect(probes).toBe(2);
  expect(started.url).not.toContain(`:${taken}`);
  expect((await fetch(`${started.url}/`)).status).toBe(200);
  expect(entries).toContainEqual(expect.objectContaining({ level: 'warn', port: taken }));
});

/** A loopback port another process holds until the test ends. */
async function squatted(defer: (cleanup: () => Promise<void>) => void): Promise<number> {
  const squatter = createServer();
  squatter.listen(0, '127.0.0.1');
  await once(squatter, 'listening');
  defer(() => new Promise<void>((resolve) => squatter.close(() => resolve())));
  return (squatter.address() as AddressInfo).port;
}

it('stops at once when the admin port is the one taken, probing no other port for the bot', async ({
  defer,
}) => {
  const taken = await squatted(defer);
  let probes = 0;
  await expect(
    start(
      { PORT: '0', ADMIN_PORT: String(taken), STORE_URL: 'memory://' },
      {
        print: () => undefined,
        logger: () => createLogger('info', { write: () => undefined }),
        freePort: async () => {
          probes += 1;
          return freePort();
        },
      },
    ),
  ).rejects.toThrow(`ADMIN_PORT/ADMIN_HOST: cannot listen on 127.0.0.1:${taken}`);
  expect(probes).toBe(1);
});
