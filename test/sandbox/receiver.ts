// A tiny HTTP receiver on 127.0.0.1 that records what the sandbox POSTs (webhooks, bridge callbacks).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: { event?: string; data?: Record<string, unknown>; timestamp?: string } & Record<string, unknown>;
}

export interface Receiver {
  url: string;
  received: Received[];
  waitFor(predicate: (r: Received) => boolean): Promise<Received>;
  stop(): Promise<void>;
}

export async function startReceiver(answerStatus = 200): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<{ predicate: (r: Received) => boolean; resolve: (r: Received) => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry: Received = { path: req.url ?? '/', headers: req.headers, body, json: JSON.parse(body) };
      received.push(entry);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(entry)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(entry);
        }
      }
      res.writeHead(answerStatus).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    waitFor: (predicate) => {
      const already = received.find(predicate);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => waiters.push({ predicate, resolve }));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
