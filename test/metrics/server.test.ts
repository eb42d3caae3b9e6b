// Where metrics are served: nowhere unless METRICS_PORT is set (test/config.test.ts: on loopback
// unless METRICS_HOST says otherwise), and only at GET /metrics.
import { Registry } from 'prom-client';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import { botTest } from '../support/bot.js';

botTest('a bot started without metrics binds no metrics port', async ({ startApp }) => {
  const app = await startApp();
  expect(app.metricsUrl).toBeUndefined();
});

botTest('a bot with metrics serves them on loopback, at the port it reports', async ({ startApp }) => {
  const app = await startApp({ metrics: { port: 0, host: '127.0.0.1' } });
  const url = new URL(app.metricsUrl ?? '');
  expect(url.hostname).toBe('127.0.0.1');
  expect(Number(url.port)).toBeGreaterThan(0);
  expect(url.pathname).toBe('/metrics');
  const response = await request(url);
  expect(response.statusCode).toBe(200);
  expect(await response.body.text()).toContain('cngn_approval_requests');
});

describe('the metrics server', () => {
  it('answers GET /metrics only', async () => {
    const server = await startMetricsServer(new Registry(), { port: 0, host: '127.0.0.1' }, silentLogger);
    try {
      expect(server.address.host).toBe('127.0.0.1');
      const origin = `http://127.0.0.1:${server.address.port}`;
      const elsewhere = await request(`${origin}/healthz`);
      await elsewhere.body.dump();
      expect(elsewhere.statusCode).toBe(404);
      const posted = await request(`${origin}/metrics`, { method: 'POST', body: 'x' });
      await posted.body.dump();
      expect(posted.statusCode).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('names the setting when the port is taken', async () => {
    const first = await startMetricsServer(new Registry(), { port: 0, host: '127.0.0.1' }, silentLogger);
    try {
      await expect(
        startMetricsServer(new Registry(), { port: first.address.port, host: '127.0.0.1' }, silentLogger),
      ).rejects.toThrow(/METRICS_PORT\/METRICS_HOST: cannot listen on 127\.0\.0\.1:\d+/);
    } finally {
      await first.close();
    }
  });
});
