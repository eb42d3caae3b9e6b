// Answers posted together share a few kept-open connections to the response_url host. Before, each
// answer of a burst opened a connection of its own (undici's pool has no bound by default), which was
// closed again once idle: a connection, and with Slack a TLS handshake, per answer of every burst.
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { postToResponseUrl } from '../../../src/slack/runtime/response-url.js';

it('posts a burst of answers over a few connections, every answer delivered, a refusal an error', async () => {
  let connections = 0;
  const received: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      received.push(body);
      // Answered late, so the burst is in flight all at once.
      setTimeout(() => {
        if (req.url?.endsWith('/refused')) res.statusCode = 404;
        res.end(req.url?.endsWith('/long') ? 'x'.repeat(200_000) : 'ok');
      }, 20);
    });
  });
  server.on('connection', () => {
    connections++;
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/response/burst`;
    await Promise.all(Array.from({ length: 40 }, (_, i) => postToResponseUrl(url, { text: `answer ${i}` })));
    expect(received).toHaveLength(40);
    expect(new Set(received).size).toBe(40);
    expect(connections).toBeLessThanOrEqual(8);
    // A long answer is read to its end; a refusal is an error carrying its status.
    await expect(
      postToResponseUrl(url.replace('/burst', '/long?x=1'), { text: 'long' }),
    ).resolves.toBeUndefined();
    await expect(postToResponseUrl(url.replace('/burst', '/refused'), { text: 'no' })).rejects.toMatchObject({
      code: 'slack_response_url_failed',
      message: expect.stringContaining('HTTP 404'),
    });
    await expect(postToResponseUrl('not a url', { text: 'no' })).rejects.toThrow();
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

it('gives up on every post, queued ones included, once its deadline passed while Slack holds them', async () => {
  const held = new Set<ServerResponse>();
  const server = createServer((_req, res) => {
    held.add(res); // never answered
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/response/hung`;
    // Twelve posts over eight connections: four wait in the queue, where undici's own timeouts never start.
    const posts = Array.from({ length: 12 }, (_, i) => postToResponseUrl(url, { text: `answer ${i}` }, 300));
    const settled = await Promise.allSettled(posts);
    expect(settled.map((s) => s.status)).toEqual(Array(12).fill('rejected'));
    expect((settled[11] as PromiseRejectedResult).reason).toMatchObject({
      code: 'slack_response_url_failed',
      message: expect.stringContaining('did not answer'),
    });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
