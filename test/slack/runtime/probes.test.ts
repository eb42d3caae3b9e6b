// The probes, through the whole bot over HTTP: /livez answers whenever the process does; /readyz is 200
// `{ready: true}` only while the store answers, the start-up check against Slack has passed and the
// bot is not shutting down, else 503 with every reason; /healthz says the same in its own shape, with
// the audit trail's last check beside it.
import { expect } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { startBot } from '../../../src/wiring/bot.js';
import { botTest } from '../../support/bot.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { SIGNING_SECRET, testConfig } from '../../support/harness.js';
import { slashCommand } from '../../support/slack-requests.js';
import { freePort } from '../approvals/support.js';

const get = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** The audit trail's check at start found nothing wrong (an empty chain, nothing signed on a memory store). */
const AUDIT_OK = expect.objectContaining({ checked: true, ok: true, problems: [] });
/** Which build answers: the version in package.json and the commit. */
const BUILD = { version: expect.stringMatching(/^\d+\.\d+\.\d+/), commit: expect.any(String) };

botTest('says ready on /readyz and /healthz, and alive on /livez', async ({ app }) => {
  expect(await get(`${app.adminUrl}/readyz`)).toEqual({ status: 200, body: { ready: true } });
  expect(await get(`${app.adminUrl}/healthz`)).toEqual({
    status: 200,
    body: { ok: true, ready: true, ...BUILD, audit: AUDIT_OK },
  });
  expect(await get(`${app.adminUrl}/livez`)).toEqual({ status: 200, body: { ok: true } });
});

botTest(
  'is not ready while the store does not answer, and says so; still alive',
  async ({ controlledApp, controls }) => {
    const { app } = controlledApp;
    const restore = controls.failPings();
    const reason = 'the store (memory) failed: connection refused (test)';
    expect(await get(`${app.adminUrl}/readyz`)).toEqual({
      status: 503,
      body: { ready: false, reasons: [reason] },
    });
    expect(await get(`${app.adminUrl}/healthz`)).toEqual({
      status: 503,
      body: { ok: false, ready: false, reason, reasons: [reason], ...BUILD, audit: AUDIT_OK },
    });
    expect((await get(`${app.adminUrl}/livez`)).status).toBe(200);
    restore();
    expect((await get(`${app.adminUrl}/readyz`)).status).toBe(200);
  },
);

botTest(
  'says why the freeze of sends could not be read without the credentials the driver quoted',
  async ({ controlledApp, controls }) => {
    const { app } = controlledApp;
    const restore = controls.failReads(
      'approvals:freeze:',
      'connection to redis://desk:s3cretpass@db.internal:6379 was reset',
    );
    const readyz = await get(`${app.adminUrl}/readyz`);
    const healthz = await get(`${app.adminUrl}/healthz`);
    restore();
    expect(readyz).toEqual({
      status: 503,
      body: {
        ready: false,
        reasons: [
          'the freeze of sends could not be read: Error: connection to redis://[redacted]@db.internal:6379 was reset',
        ],
      },
    });
    expect(healthz.status).toBe(503);
    expect(JSON.stringify([readyz, healthz])).not.toMatch(/s3cretpass|desk:/);
  },
);

botTest(
  'is not ready, and asks Slack to come back, until the start-up check has passed; then not while stopping',
  async ({ sandbox, defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    const port = await freePort();
    const adminPort = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const admin = `http://127.0.0.1:${adminPort}`;
    const held = slack.hold('auth.test');
    const starting = startBot({
      config: testConfig(slack.apiUrl, {
        port,
        admin: { port: adminPort, host: '127.0.0.1' },
        webhookSecret: sandbox.webhookSecret,
      }),
      logger: silentLogger,
      sandbox,
    });
    await held.arrived;
    expect(await get(`${admin}/readyz`)).toEqual({
      status: 503,
      body: { ready: false, reasons: ['the start-up check against Slack has not finished'] },
    });
    expect((await get(`${admin}/livez`)).status).toBe(200);
    const command = await slashCommand(
      { baseUrl: url, signingSecret: SIGNING_SECRET },
      { text: 'help', responseUrl: slack.responseUrl('early') },
    );
    expect(command.status).toBe(503);
    expect(command.headers['retry-after']).toBe('5');
    held.release();
    const bot = await starting;
    defer(() => bot.stop());
    expect(await get(`${admin}/readyz`)).toEqual({ status: 200, body: { ready: true } });
    // Shutting down: the bot says so from the moment it begins to stop.
    const stopping = bot.stop();
    expect(await bot.slack.readiness()).toContain('shutting down');
    await stopping;
  },
);
