// `GET /metrics` on a server of its own (METRICS_PORT, METRICS_HOST), apart from the bot's port:
// the bot's port may face Slack and the service, and metrics are for the operator's network only.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { MetricsConfig } from '../config.js';
import type { Logger } from '../log.js';

export const METRICS_PATH = '/metrics';

export interface MetricsServer {
  /** Where it listens, the port as bound (METRICS_PORT 0 takes a free one). */
  address: { host: string; port: number };
  /** `http://host:port/metrics` */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(
  registry: Registry,
  config: MetricsConfig,
  log: Logger,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found: metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' });
      res.end('method not allowed\n');
      return;
    }
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
  });
  await new Promise<void>((resolve, reject) => {
    const refused = (error: Error) =>
      reject(
        new Error(
          `METRICS_PORT/METRICS_HOST: cannot listen on ${config.host}:${config.port} (${error.message})`,
        ),
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
  const url = `http://${host}:${bound.port}${METRICS_PATH}`;
  log.info('metrics served', { url });
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
