// A reason a probe gives is read by whoever can reach the admin port: a store's error that quotes a
// URL with its user and password (a driver's own words) is answered without them.
import { createServer } from 'node:http';
import { expect } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { probeRoutes } from '../../../src/slack/runtime/probes.js';
import { httpAppOptions, slackAppTest as test } from '../../support/slack-app.js';

const QUOTED = 'could not reach rediss://desk:s3cretpass@db.internal:6380/0';

test('a store health check that throws is a reason without the URL credentials', async ({
  slack,
  startSlackApp,
}) => {
  const app = await startSlackApp(
    httpAppOptions(slack, 'probe-reasons-signing-secret', {
      logger: silentLogger,
      health: () => Promise.reject(new Error(QUOTED)),
    }),
  );
  expect(await app.readiness()).toEqual([
    'the store health check failed: Error: could not reach rediss://[redacted]@db.internal:6380/0',
  ]);
});

test('a readiness check that throws is answered on /readyz without the URL credentials', async ({
  defer,
}) => {
  const routes = probeRoutes(() => Promise.reject(new Error(QUOTED)));
  const readyz = routes.find((route) => route.path === '/readyz');
  if (!readyz) throw new Error('no /readyz');
  const server = createServer((req, res) => readyz.handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  defer(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  const response = await fetch(`http://127.0.0.1:${port}/readyz`);
  const body = await response.text();
  expect(response.status).toBe(503);
  expect(JSON.parse(body)).toEqual({
    ready: false,
    reasons: ['the readiness check failed: Error: could not reach rediss://[redacted]@db.internal:6380/0'],
  });
  expect(body).not.toContain('s3cretpass');
});
