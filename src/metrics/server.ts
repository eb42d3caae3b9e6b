// The admin listener (ADMIN_PORT, ADMIN_HOST: loopback by default), apart from the bot's public port:
// the probes (/livez, /readyz, /healthz) and `GET /metrics`. The public port may face Slack and the
// service; what these answer (the freeze, the audit trail, the store, every figure) is for the
// operator's network only. Decision: docs/decisions/admin-listener.md.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { AdminConfig } from '../config.js';
import type { Logger } from '../log.js';

const METRICS_PATH = '/metrics';

/** One path of the admin listener, answering GET and HEAD. */
export interface AdminRoute {
  path: string;
  handler(req: IncomingMessage, res: ServerResponse): void;
}

export interface AdminServer {
  /** Where it listens, the port as bound (port 0, from tests only, takes a free one). */
  address: { host: string; port: number };
  /** `http://host:port` */
  url: string;
  close(): Promise<void>;
}

/** `GET /metrics`: the registry in Prometheus' text format. */
export function metricsRoute(registry: Registry, log: Logger): AdminRoute {
  return {
    path: METRICS_PATH,
    handler: (req, res) => {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': registry.contentType });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        (error: unknown) => {
          log.error('metrics could not be collected', {
            error: error instanceof Error ? error.message : String(error),
          });
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('metrics could not be collected\n');
        },
      );
    },
  };
}

/** Which variables set the listener, named when it cannot listen, and what its start-up line says. */
export interface AdminListenerNames {
  variables: string;
  serving: string;
}

const ADMIN_LISTENER: AdminListenerNames = {
  variables: 'ADMIN_PORT/ADMIN_HOST',
  serving: 'admin port serving the probes and metrics',
};

export async function startAdminServer(
  routes: readonly AdminRoute[],
  config: AdminConfig,
  log: Logger,
  names: AdminListenerNames = ADMIN_LISTENER,
): Promise<AdminServer> {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const paths = [...byPath.keys()].join(', ');
  const server: Server = createServer((req, res) => {
    const route = byPath.get((req.url ?? '/').split('?')[0] ?? '/');
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`not found: this port serves ${paths}\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' });
      res.end('method not allowed\n');
      return;
    }
    try {
      route.handler(req, res);
    } catch (error) {
      log.error('an admin route failed', { path: route.path, error });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    const refused = (error: Error) =>
      reject(
        new Error(`${names.variables}: cannot listen on ${config.host}:${config.port} (${error.message})`),
      );
    server.once('error', refused);
    server.listen(config.port, config.host, () => {
      server.off('error', refused);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  const address = { host: bound.address, port: bound.port };
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  const url = `http://${host}:${bound.port}`;
  log.debug(names.serving, { url, paths });
  return {
    address,
    url,
    async close() {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
