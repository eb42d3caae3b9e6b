// The start-up line says which build runs and where its admin port is; a setting still read under its
// old name (METRICS_PORT, METRICS_HOST) is a warning naming the new one.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { start } from '../../src/wiring/startup.js';
import { capturedLog } from '../support/captured-log.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { slackTest as it } from '../support/file-slack.js';

async function startedWith(
  slack: FakeSlack,
  env: Record<string, string>,
): Promise<Array<Record<string, unknown>>> {
  const { logger, entries } = capturedLog('info');
  const started = await start(
    {
      PORT: '0',
      STORE_URL: 'memory://',
      SLACK_BOT_TOKEN: 'xoxb-real-looking',
      SLACK_SIGNING_SECRET: 'shh',
      SLACK_API_URL: slack.apiUrl,
      ...env,
    },
    { print: () => undefined, logger: () => logger },
  );
  const health = await fetch(`${started.bot.adminUrl}/healthz`);
  const healthz = { message: 'healthz', ...((await health.json()) as object) };
  await started.stop();
  return [...entries, healthz];
}

it('names the version, the commit and the admin port in the "is running" line, and /healthz the same', async ({
  slack,
}) => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const lines = await startedWith(slack, { ADMIN_PORT: '0' });
  const running = lines.find((line) => line.message === 'cngn-desk is running');
  expect(running).toMatchObject({
    version,
    commit: expect.stringMatching(/^([0-9a-f]{12}|unknown)$/),
    node: process.version,
    admin: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
  });
  expect(lines.find((line) => line.message === 'healthz')).toMatchObject({
    version,
    commit: running?.commit,
  });
});

it('reads METRICS_PORT as ADMIN_PORT for one release, with a warning naming ADMIN_PORT', async ({
  slack,
}) => {
  const lines = await startedWith(slack, { METRICS_PORT: '0' });
  expect(lines).toContainEqual(
    expect.objectContaining({
      level: 'warn',
      message: expect.stringMatching(/^METRICS_PORT is deprecated .* set ADMIN_PORT instead/),
    }),
  );
});
