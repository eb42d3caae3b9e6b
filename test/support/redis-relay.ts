// A TCP relay to the test Redis, for faults a real network or a Redis-speaking proxy brings: cut its
// open connections, or rewrite what the bot sends on the way.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { REDIS_URL } from './redis.js';

export interface RedisRelay {
  /** STORE_URL through the relay. */
  url: string;
  /** Drop every open connection, as a network fault would; new ones still go through. */
  cut(): void;
  close(): Promise<void>;
}

/** `rewrite` sees each chunk the client sends before Redis does. */
export async function startRedisRelay(rewrite: (sent: Buffer) => Buffer = (b) => b): Promise<RedisRelay> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port || 6379) });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.on('data', (chunk: Buffer) => upstream.write(rewrite(chunk)));
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = new URL(REDIS_URL);
  url.host = `127.0.0.1:${port}`;
  const cut = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: url.toString(),
    cut,
    close: () => {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
