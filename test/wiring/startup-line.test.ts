// The start-up line says which build runs and where its admin port is. ADMIN_PORT=0 is no admin
// listener at all, said in one info line, the bot serving Slack all the same; METRICS_PORT serves
// /metrics alone on a listener of its own, the probes staying on the admin port.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { type Started, type StartOptions, start } from '../../src/wiring/startup.js';
import { freePort } from '../slack/approvals/support.js';
import { capturedLog } from '../support/captured-log.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { slackTest as it } from '../support/file-slack.js';
import { commandAnswer } from '../support/slack-requests.js';

const SIGNING_SECRET = 'shh';
const ADMIN_OFF = 'ADMIN_PORT=0: no admin listener, so no /livez, /readyz, /healthz and no /metrics on it';

async function started(
  slack: FakeSlack,
  env: Record<string, string>,
  options: StartOptions = {},
): Promise<{ started: Started; entries: Array<Record<string, unknown>> }> {
  const { logger, entries } = capturedLog('info');
  const run = await start(
    {
      PORT: '0',
      STORE_URL: 'memory://',
      SLACK_BOT_TOKEN: 'xoxb-real-looking',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      ...env,
    },
    { print: () => undefined, logger: () => logger, ...options },
  );
  return { started: run, entries: entries as Array<Record<string, unknown>> };
}

it('names the version, the commit and the admin port in the "is running" line, and /healthz the same', async ({
  slack,
  defer,
}) => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const run = await started(slack, {}, { adminOnAnyPort: true });
  defer(() => run.started.stop());
  const running = run.entries.find((line) => line.message === 'cngn-desk is running');
  expect(running).toMatchObject({
    version,
    commit: expect.stringMatching(/^([0-9a-f]{12}|unknown)$/),
    node: process.version,
    admin: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
  });
  expect(running).not.toHaveProperty('metrics');
  expect(run.entries.map((line) => line.message)).not.toContain(ADMIN_OFF);
  const health = await fetch(`${run.started.bot.adminUrl}/healthz`);
  expect(await health.json()).toMatchObject({ version, commit: running?.commit });
});

it('opens no admin listener with ADMIN_PORT=0, says so once, and serves Slack all the same', async ({
  slack,
  defer,
}) => {
  const run = await started(slack, { ADMIN_PORT: '0' });
  defer(() => run.started.stop());
  const { bot } = run.started;
  expect([bot.adminUrl, bot.metricsUrl, bot.admin.admin, bot.admin.metrics]).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  expect(run.entries.filter((line) => line.message === ADMIN_OFF)).toEqual([
    expect.objectContaining({ level: 'info', metrics: 'off (METRICS_PORT unset)' }),
  ]);
  expect(run.entries.find((line) => line.message === 'cngn-desk is running')).toMatchObject({
    admin: 'off (ADMIN_PORT=0)',
  });
  expect(run.entries.map((line) => line.message)).not.toContain('admin port serving the probes and metrics');
  // No probe on the public port either: they are never served there.
  expect((await fetch(`${bot.url}/livez`)).status).toBe(404);
  const answer = await commandAnswer(
    { sender: { baseUrl: bot.url, signingSecret: SIGNING_SECRET }, slack },
    'help',
  );
  expect(JSON.stringify(answer.body)).toContain('/cngn');
});

it('serves /metrics alone on METRICS_PORT, the probes staying on the admin port', async ({
  slack,
  defer,
}) => {
  const metricsPort = await freePort();
  const run = await started(slack, { METRICS_PORT: String(metricsPort) }, { adminOnAnyPort: true });
  defer(() => run.started.stop());
  const { bot } = run.started;
  expect(bot.metricsUrl).toBe(`http://127.0.0.1:${metricsPort}`);
  expect(run.entries.find((line) => line.message === 'cngn-desk is running')).toMatchObject({
    metrics: bot.metricsUrl,
  });
  expect(run.entries.some((line) => line.level === 'warn' && /METRICS_/.test(String(line.message)))).toBe(
    false,
  );
  const scraped = await fetch(`${bot.metricsUrl}/metrics`);
  expect(scraped.status).toBe(200);
  expect(await scraped.text()).toMatch(/^# HELP cngn_/m);
  for (const probe of ['/livez', '/readyz', '/healthz']) {
    expect((await fetch(`${bot.metricsUrl}${probe}`)).status, probe).toBe(404);
    expect((await fetch(`${bot.adminUrl}${probe}`)).status, probe).toBe(200);
  }
  expect((await fetch(`${bot.adminUrl}/metrics`)).status).toBe(200);
});

it('serves /metrics on METRICS_PORT with ADMIN_PORT=0, and no probe anywhere', async ({ slack, defer }) => {
  const metricsPort = await freePort();
  const run = await started(slack, { ADMIN_PORT: '0', METRICS_PORT: String(metricsPort) });
  defer(() => run.started.stop());
  const { bot } = run.started;
  expect(bot.adminUrl).toBeUndefined();
  expect(run.entries.find((line) => line.message === ADMIN_OFF)).toMatchObject({ metrics: bot.metricsUrl });
  expect((await fetch(`${bot.metricsUrl}/metrics`)).status).toBe(200);
  expect((await fetch(`${bot.metricsUrl}/readyz`)).status).toBe(404);
});
