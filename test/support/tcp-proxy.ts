// A TCP proxy on 127.0.0.1 in front of a real server (Redis), which a test makes unreachable under a
// running bot: `stop()` is the server gone (connections cut, new ones refused); `freeze()` is the
// server hung (connections stay open, nothing arrives either way) until `thaw()` lets it all through.
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

interface Pipe {
  from: Socket;
  to: Socket;
  held: Buffer[];
}

export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private readonly pipes: Pipe[] = [];
  private frozen = false;
  private readonly server: Server;
  port = 0;

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.connect(client));
  }

  /** A proxy to the Redis at `url`; the bot connects to `proxy.url`. */
  static async forRedis(url: string): Promise<TcpProxy> {
    const where = new URL(url);
    const proxy = new TcpProxy({ host: where.hostname, port: Number(where.port || 6379) });
    proxy.server.listen(0, '127.0.0.1');
    await once(proxy.server, 'listening');
    const address = proxy.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    proxy.port = address.port;
    return proxy;
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

  /** The server hangs: connections stay open, and nothing sent either way arrives (it is held). */
  freeze(): void {
    this.frozen = true;
  }

  /** What was held arrives now, and traffic flows again. */
  thaw(): void {
    this.frozen = false;
    for (const pipe of this.pipes) {
      for (const chunk of pipe.held.splice(0)) pipe.to.write(chunk);
    }
  }

  private connect(client: Socket): void {
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
    for (const pipe of [
      { from: client, to: upstream, held: [] },
      { from: upstream, to: client, held: [] },
    ] as Pipe[]) {
      this.pipes.push(pipe);
      pipe.from.on('data', (chunk: Buffer) => {
        if (this.frozen) pipe.held.push(chunk);
        else pipe.to.write(chunk);
      });
    }
  }
}
