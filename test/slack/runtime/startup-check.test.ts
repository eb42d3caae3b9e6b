// The start-up check against Slack, through the whole bot on a fake Slack: who the bot is, the scopes
// Slack granted, the approvals and alerts channels, the approvers. What the bot can run with is a
// warning, one line naming the fix; what it cannot (a refused token, a channel that does not exist, a
// scope nothing works without) stops it before it takes a single request. The process's exit and its
// one line are in test/main.test.ts.
import { WebClient } from '@slack/web-api';
import { expect } from 'vitest';
import type { Sandbox } from '../../../src/sandbox/index.js';
import {
  checkSlack,
  SlackCheckFailed,
  STARTUP_CHECK_CLIENT,
} from '../../../src/slack/runtime/startup-check.js';
import { createStore } from '../../../src/store/index.js';
import { botTest } from '../../support/bot.js';
import { capturedLog } from '../../support/captured-log.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { ALERTS_CHANNEL } from '../../support/harness.js';
import {
  APPROVALS_CHANNEL,
  APPROVER_A,
  type ApprovalAppOptions,
  startApprovalApp,
} from '../approvals/support.js';

type Entry = { level: string; message: string } & Record<string, unknown>;

const test = botTest
  .extend('fakeSlack', async ({ defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    return slack;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('log', async ({}) => {
    const { logger, entries } = capturedLog<Entry>('info');
    return {
      entries,
      logger,
      /** The start-up check's own lines (warnings), in order. */
      checkLines: () => entries.filter((e) => e.check === 'slack').map((e) => `${e.level} ${e.message}`),
    };
  });

const readyz = async (url: string) => {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

test('names the bot and the workspace, warns of nothing, and is ready', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  const app = await startApp({ slack: fakeSlack, logger: log.logger });
  expect(log.checkLines()).toEqual([]);
  expect(log.entries.find((e) => e.message === 'Slack start-up check passed')).toMatchObject({
    level: 'info',
    bot: 'cngn-desk',
    botUserId: 'UBOT',
    team: 'Treasury',
    teamId: 'T1',
  });
  // A handful of calls, each once: Bolt asks nothing itself (it has the bot's identity from the check).
  const asked = fakeSlack.calls.map((c) =>
    `${c.method} ${String(c.body.channel ?? c.body.user ?? '')}`.trim(),
  );
  expect(asked.slice(0, 6)).toEqual([
    'auth.test',
    `conversations.info ${APPROVALS_CHANNEL}`,
    `conversations.info ${ALERTS_CHANNEL}`,
    `users.info ${APPROVER_A}`,
    'users.info UAPPROVERB',
    'users.info UREQ',
  ]);
  expect(fakeSlack.callsTo('auth.test')).toHaveLength(1);
  expect(await readyz(app.adminUrl)).toEqual({ status: 200, body: { ready: true } });
});

test('warns of a missing optional scope, naming the feature it stops, and starts', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  fakeSlack.scopes = fakeSlack.scopes.filter((scope) => scope !== 'files:write');
  const app = await startApp({ slack: fakeSlack, logger: log.logger });
  expect(log.checkLines()).toEqual([
    'warn scope files:write is missing: reinstall the app from manifest.yml; until then /cngn audit export does not work',
  ]);
  expect((await readyz(app.adminUrl)).status).toBe(200);
});

test('warns that the bot is not in the approvals channel, naming /invite', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  fakeSlack.on('conversations.info', (call) =>
    call.body.channel === APPROVALS_CHANNEL
      ? { body: { ok: true, channel: { id: APPROVALS_CHANNEL, name: 'approvals', is_member: false } } }
      : undefined,
  );
  await startApp({ slack: fakeSlack, logger: log.logger });
  expect(log.checkLines()).toEqual([
    'warn the bot is not in #approvals (CNGN_APPROVALS_CHANNEL): /invite @cngn-desk there',
  ]);
});

test('warns of an approver who is not in the workspace, and of one deactivated, by ID', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  fakeSlack.on('users.info', (call) => {
    if (call.body.user === APPROVER_A) return { body: { ok: false, error: 'user_not_found' } };
    if (call.body.user === 'UAPPROVERB') {
      return { body: { ok: true, user: { id: 'UAPPROVERB', real_name: 'Bola', deleted: true } } };
    }
    return undefined;
  });
  await startApp({ slack: fakeSlack, logger: log.logger });
  expect(log.checkLines()).toEqual([
    `warn approver ${APPROVER_A} (CNGN_APPROVERS) is not a member of this workspace: check the member ID (profile → ⋮ → Copy member ID)`,
    'warn approver UAPPROVERB (Bola) is deactivated in Slack: remove them from CNGN_APPROVERS',
  ]);
});

test('warns of an approver group that does not exist', async ({ startApp, fakeSlack, log }) => {
  fakeSlack.on('usergroups.users.list', () => ({ body: { ok: false, error: 'no_such_subteam' } }));
  await startApp({ slack: fakeSlack, logger: log.logger, approverGroup: 'S0GONE' });
  expect(log.checkLines()).toEqual([
    "warn the approver group S0GONE (CNGN_APPROVER_GROUP) does not exist: check its ID (the group's page → ⋮ → Copy group ID)",
  ]);
});

test('cannot tell channel membership without the read scopes, and says which scope', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  fakeSlack.on('conversations.info', (call) =>
    call.body.channel === ALERTS_CHANNEL
      ? { body: { ok: false, error: 'missing_scope', needed: 'groups:read', provided: 'chat:write' } }
      : undefined,
  );
  await startApp({ slack: fakeSlack, logger: log.logger });
  expect(log.checkLines()).toEqual([
    `warn cannot tell whether the bot is in channel ${ALERTS_CHANNEL} (CNGN_ALERTS_CHANNEL): scope groups:read is missing: reinstall the app from manifest.yml`,
  ]);
});

/** The bot with its own store and sandbox, so a start that fails leaves nothing of the test's behind. */
async function refusedStart(
  fakeSlack: FakeSlack,
  sandbox: Sandbox,
  options: Omit<ApprovalAppOptions, 'sandbox' | 'slack' | 'store'> = {},
): Promise<SlackCheckFailed> {
  const store = await createStore('memory://');
  try {
    const started = await startApprovalApp({ ...options, sandbox, slack: fakeSlack, store }).then(
      async (app) => {
        await app.stop();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(started).toBeInstanceOf(SlackCheckFailed);
    return started as SlackCheckFailed;
  } finally {
    await store.close();
  }
}

test('does not start when a scope nothing works without is missing', async ({ fakeSlack, sandbox }) => {
  fakeSlack.scopes = fakeSlack.scopes.filter((scope) => scope !== 'chat:write');
  const refused = await refusedStart(fakeSlack, sandbox);
  expect(refused.message).toBe(
    'scope chat:write is missing: reinstall the app from manifest.yml; the bot does not start without it (needed for every message the bot posts)',
  );
  // Nothing else was asked of Slack after the check: no Bolt app was built.
  expect(fakeSlack.calls.map((c) => c.method)).not.toContain('chat.postMessage');
});

test('does not start when auth.test names no workspace: nobody could be told to be its member', async ({
  fakeSlack,
  sandbox,
}) => {
  fakeSlack.on('auth.test', () => ({
    body: { ok: true, user_id: 'UBOT', user: 'cngn-desk', bot_id: 'BBOT', team: 'Treasury' },
  }));
  const refused = await refusedStart(fakeSlack, sandbox);
  expect(refused.message).toBe(
    'auth.test names no workspace (team_id): the access gate cannot tell its members; check SLACK_API_URL',
  );
});

test('warns of a guest and a bot a role setting names, and of a member of another workspace', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  fakeSlack.people.set('UVISITOR', { name: 'Vee', team: 'T0EVIL' });
  fakeSlack.people.set('UGUESTY', { name: 'Gus', guest: true });
  await startApp({
    slack: fakeSlack,
    logger: log.logger,
    config: { roles: { auditors: ['UVISITOR', 'UGUESTY', 'UOTHERBOT'], approversByKind: {} } },
  });
  expect(log.checkLines()).toEqual([
    'warn person UVISITOR (Vee) is not a member of Treasury (a member of another workspace, as through Slack Connect), so cngn-desk lets them do nothing: remove them from CNGN_AUDITORS',
    'warn person UGUESTY (Gus) is a guest, who cannot act here: remove them from CNGN_AUDITORS',
    'warn person UOTHERBOT is a bot, who cannot act here: remove it from CNGN_AUDITORS',
  ]);
});

test('does not start without users:read, which the access gate needs to look everyone up', async ({
  fakeSlack,
  sandbox,
}) => {
  fakeSlack.scopes = fakeSlack.scopes.filter((scope) => scope !== 'users:read');
  const refused = await refusedStart(fakeSlack, sandbox);
  expect(refused.message).toBe(
    "scope users:read is missing: reinstall the app from manifest.yml; the bot does not start without it (needed for the access gate, which looks up everyone who uses the bot to refuse guests, bots and deactivated accounts; /cngn policy (approvers' names); recording the actor's name in audit entries)",
  );
});

test('does not start without usergroups:read when a role or a kind’s pool names a user group, naming each setting', async ({
  fakeSlack,
  sandbox,
}) => {
  fakeSlack.scopes = fakeSlack.scopes.filter((scope) => scope !== 'usergroups:read');
  const roles = { requesters: ['STEAM'], approversByKind: { withdraw: ['SPOOL'] } };
  const refused = await refusedStart(fakeSlack, sandbox, { config: { roles } });
  expect(refused.message).toBe(
    'scope usergroups:read is missing: reinstall the app from manifest.yml; the bot does not start without it (needed for reading the members of the user groups CNGN_REQUESTERS and CNGN_APPROVERS_WITHDRAW name)',
  );
  const approverGroup = await refusedStart(fakeSlack, sandbox, {
    approverGroup: 'SAPPROVERS',
    config: { roles: { auditors: ['SAUDIT'], approversByKind: {} } },
  });
  expect(approverGroup.message).toMatch(
    /needed for reading the members of the user groups CNGN_APPROVER_GROUP and CNGN_AUDITORS name\)$/,
  );
});

test('starts without usergroups:read when no setting names a user group, warning of it', async ({
  startApp,
  fakeSlack,
  log,
}) => {
  fakeSlack.scopes = fakeSlack.scopes.filter((scope) => scope !== 'usergroups:read');
  const app = await startApp({
    slack: fakeSlack,
    logger: log.logger,
    config: { roles: { requesters: ['UREQ'], approversByKind: {} } },
  });
  expect(log.checkLines()).toEqual([
    'warn scope usergroups:read is missing: reinstall the app from manifest.yml; until then user groups naming approvers or roles (CNGN_APPROVER_GROUP, CNGN_READERS…) and /cngn policy does not work',
  ]);
  expect((await readyz(app.adminUrl)).status).toBe(200);
});

test('does not start when the approvals channel does not exist', async ({ fakeSlack, sandbox }) => {
  fakeSlack.on('conversations.info', (call) =>
    call.body.channel === APPROVALS_CHANNEL ? { body: { ok: false, error: 'channel_not_found' } } : undefined,
  );
  const refused = await refusedStart(fakeSlack, sandbox);
  expect(refused.findings.filter((f) => f.level === 'fatal').map((f) => f.line)).toEqual([
    `channel ${APPROVALS_CHANNEL} (CNGN_APPROVALS_CHANNEL) does not exist, or is private and the bot is not in it: set CNGN_APPROVALS_CHANNEL to the channel's ID (channel name → About), or /invite @cngn-desk in that private channel`,
  ]);
});

test('gives up on a Slack that does not answer within a minute, not after half an hour', async () => {
  const { retries, factor, minTimeout, maxTimeout } = STARTUP_CHECK_CLIENT.retryConfig;
  const waits = Array.from({ length: retries }, (_, i) => Math.min(maxTimeout, minTimeout * factor ** i));
  const worst = waits.reduce((a, b) => a + b, 0) + (retries + 1) * STARTUP_CHECK_CLIENT.timeout;
  expect(worst).toBeLessThanOrEqual(60_000);
  // The same settings on a port nobody listens on, with the pauses shortened: the check's own line.
  const slack = await FakeSlack.start();
  const closed = slack.apiUrl;
  await slack.stop();
  const client = new WebClient('xoxb-test', {
    slackApiUrl: closed,
    ...STARTUP_CHECK_CLIENT,
    retryConfig: { ...STARTUP_CHECK_CLIENT.retryConfig, minTimeout: 1, maxTimeout: 1 },
  });
  const refused = await checkSlack(client, {}).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(SlackCheckFailed);
  expect((refused as SlackCheckFailed).message).toMatch(/^Slack did not answer auth\.test/);
});
