// scripts/release.sh check, the image's health check: GET /livez on the admin port (9091 unless
// ADMIN_PORT says otherwise); with ADMIN_PORT=0 there is no admin listener and so no probe, and the
// check asks only whether the bot answers HTTP on PORT, so a container run that way is not unhealthy.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { freePort } from './slack/approvals/support.js';
import { test as it } from './support/fixtures.js';

const SCRIPT = fileURLToPath(new URL('../scripts/release.sh', import.meta.url));

/** The exit code of `release.sh check` with these variables. */
async function check(env: Record<string, string>): Promise<number> {
  try {
    await promisify(execFile)('sh', [SCRIPT, 'check'], {
      env: { PATH: process.env.PATH, ...env },
      timeout: 20_000,
    });
    return 0;
  } catch (error) {
    return (error as { code?: number }).code ?? -1;
  }
}

/** A loopback server answering `status` to every request, closed when the test ends. */
async function answering(status: number, defer: (cleanup: () => Promise<void>) => void): Promise<number> {
  const server: Server = createServer((_req, res) => res.writeHead(status).end());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

it('passes when /livez on ADMIN_PORT answers 200, and fails when it does not or nothing listens', async ({
  defer,
}) => {
  expect(await check({ ADMIN_PORT: String(await answering(200, defer)) })).toBe(0);
  expect(await check({ ADMIN_PORT: String(await answering(503, defer)) })).toBe(1);
  expect(await check({ ADMIN_PORT: String(await freePort()) })).toBe(1);
});

it('with ADMIN_PORT=0 (no probe to ask) passes when the bot answers HTTP on PORT, and fails when nothing does', async ({
  defer,
}) => {
  expect(await check({ ADMIN_PORT: '0', PORT: String(await answering(404, defer)) })).toBe(0);
  expect(await check({ ADMIN_PORT: '0', PORT: String(await freePort()) })).toBe(1);
});
