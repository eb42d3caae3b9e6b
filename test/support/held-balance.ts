// A service whose first balance answer is made at once and delivered late: a proxy on 127.0.0.1 in front
// of the test's sandbox passes every request through, and holds the first GET /v1/api/balance's answer
// (already computed by the sandbox) until the test lets it go. Money moved meanwhile is not in it.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandboxClientTest } from './sandbox-client.js';

export interface HeldBalance {
  /** The proxy's address: a client's `baseUrl`. */
  baseUrl: string;
  /** Resolves once the sandbox has answered the held read (its figure is fixed from then on). */
  answered: Promise<void>;
  /** Deliver the held answer. */
  release(): void;
}

async function forward(sandbox: Sandbox, req: IncomingMessage): Promise<{ status: number; text: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const upstream = await fetch(sandbox.baseUrl + (req.url ?? ''), {
    method: req.method ?? 'GET',
    headers: { authorization: String(req.headers.authorization), 'content-type': 'application/json' },
    ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
  });
  return { status: upstream.status, text: await upstream.text() };
}

/** The proxy, closed by `defer`; `release()` is called before it closes, so no answer is left held. */
async function holdFirstBalance(
  sandbox: Sandbox,
  defer: (cleanup: () => unknown) => void,
): Promise<HeldBalance> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answered!: () => void;
  const serviceAnswered = new Promise<void>((resolve) => (answered = resolve));
  let holding = true;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void forward(sandbox, req).then(
      async ({ status, text }) => {
        if (holding && req.method === 'GET' && req.url?.startsWith('/v1/api/balance')) {
          holding = false;
          answered();
          await released;
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(text);
      },
      () => res.destroy(),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  defer(async () => {
    release();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}`, answered: serviceAnswered, release };
}

/** `sandboxClientTest` plus `held`, the proxy that holds the first balance answer, for the test. */
export const heldBalanceTest = sandboxClientTest.extend('held', async ({ sandbox, defer }) =>
  holdFirstBalance(sandbox, defer),
);
