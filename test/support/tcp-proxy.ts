// A TCP proxy on 127.0.0.1 in front of a real server (Redis), which a test can make unreachable under
// a running bot: `stop()` is the server gone (connections cut, new ones refused), `freeze()` is the
// server hung (connections stay open, nothing comes back).
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private frozen = false;

  private constructor(
    private server: Server,
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy: TcpProxy = new TcpProxy(createServer(), 0, target);
    const server = proxy.listen(0);
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    Object.assign(proxy, { port: address.port });
    return proxy;
  }

  /** redis://127.0.0.1:<proxy port> for a Redis at `url`. */
  static async forRedis(url: string): Promise<TcpProxy> {
    const where = new URL(url);
    return TcpProxy.start({ host: where.hostname, port: Number(where.port || 6379) });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** The server is gone: open connections are cut and new ones refused. */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (this.server.listening) await new Promise((resolve) => this.server.close(resolve));
  }

  /** The server hangs: connections stay open, and nothing sent either way arrives. */
  freeze(): void {
    this.frozen = true;
  }

  private listen(port: number): Server {
    this.server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk) => {
        if (!this.frozen) upstream.write(chunk);
      });
      upstream.on('data', (chunk) => {
        if (!this.frozen) client.write(chunk);
      });
    });
    this.server.listen(port, '127.0.0.1');
    return this.server;
  }
}
