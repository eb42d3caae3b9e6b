// The admin listener (ADMIN_PORT, ADMIN_HOST: loopback by default, test/config.test.ts): the probes and
// GET /metrics, and nothing else; the public port serves none of them.
import { Registry } from 'prom-client';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { metricsRoute, startAdminServer } from '../../src/metrics/server.js';
import { botTest } from '../support/bot.js';

botTest(
  'a bot serves the probes and metrics on loopback, at the admin port it reports',
  async ({ startApp }) => {
    const app = await startApp();
    const url = new URL(app.adminUrl);
    expect(url.hostname).toBe('127.0.0.1');
    expect(Number(url.port)).toBeGreaterThan(0);
    expect(url.port).not.toBe(new URL(app.baseUrl).port);
    for (const path of ['/livez', '/readyz', '/healthz']) {
      const response = await request(`${app.adminUrl}${path}`);
      await response.body.dump();
      expect(response.statusCode).toBe(200);
    }
    const metrics = await request(app.metricsUrl);
    expect(metrics.statusCode).toBe(200);
    expect(await metrics.body.text()).toContain('cngn_approval_requests');
  },
);

botTest('the public port serves no probe and no metrics', async ({ startApp }) => {
  const app = await startApp();
  for (const path of ['/livez', '/readyz', '/healthz', '/metrics']) {
    const response = await request(`${app.baseUrl}${path}`);
    await response.body.dump();
    expect(response.statusCode).toBe(404);
  }
});

describe('the admin server', () => {
  it('answers GET and HEAD on its paths only', async () => {
    const server = await startAdminServer(
      [metricsRoute(new Registry(), silentLogger)],
      { port: 0, host: '127.0.0.1' },
      silentLogger,
    );
    try {
      expect(server.address.host).toBe('127.0.0.1');
      const elsewhere = await request(`${server.url}/slack/events`);
      await elsewhere.body.dump();
      expect(elsewhere.statusCode).toBe(404);
      const posted = await request(`${server.url}/metrics`, { method: 'POST', body: 'x' });
      await posted.body.dump();
      expect(posted.statusCode).toBe(405);
    } finally {
      await server.close();
    }
  });

  it('names the setting when the port is taken', async () => {
    const first = await startAdminServer([], { port: 0, host: '127.0.0.1' }, silentLogger);
    try {
      await expect(
        startAdminServer([], { port: first.address.port, host: '127.0.0.1' }, silentLogger),
      ).rejects.toThrow(/ADMIN_PORT\/ADMIN_HOST: cannot listen on 127\.0\.0\.1:\d+/);
    } finally {
      await first.close();
    }
  });
});
