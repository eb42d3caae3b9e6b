// An audit export the bot dies in the middle of: the real bot (src/main.ts) in a child process on a
// SQLite file, killed with SIGKILL while Slack holds its upload; then the whole bot started again on
// the same file. The asker is told, once, that the export was not delivered, and the chain says so.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AuditEntry } from '../../../src/approvals/types.js';
import { AuditLog } from '../../../src/audit/log.js';
import { silentLogger } from '../../../src/log.js';
import { createStore } from '../../../src/store/index.js';
import { type Bot, startBot } from '../../../src/wiring/bot.js';
import { approvalsTest } from '../../support/approvals-bot.js';
import type { FakeSlack } from '../../support/fake-slack.js';
import { SIGNING_SECRET, testConfig } from '../../support/harness.js';
import { bundledMain } from '../../support/node-entry.js';
import { slashCommand } from '../../support/slack-requests.js';

const APPROVER = 'UAPPROVERA';
/** Service credentials (a cngn_test_ key) make the environment `test`. */
const ENVIRONMENT = 'test';

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * `storeUrl`, a SQLite file in a folder of the test's own (removed after it); `startChild()`, the bot as
 * an operator runs it (dist/main.js, support/node-entry.ts), on that file, against the sandbox as the
 * service, killed after the test if still running; `startBotInProcess()`, the whole bot in this
 * process on the same file (the restart), with the same settings, stopped after the test.
 */
const test = approvalsTest
  .extend('storeUrl', async ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-export-restart-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    return `sqlite://${join(dir, 'desk.sqlite')}`;
  })
  .extend(
    'startChild',
    async ({ storeUrl, sandbox, slack, defer }) =>
      async (): Promise<{ child: ChildProcess; url: string }> => {
        const port = await freePort();
        const child = spawn(process.execPath, [await bundledMain()], {
          env: {
            PATH: process.env.PATH,
            SLACK_BOT_TOKEN: 'xoxb-test',
            SLACK_SIGNING_SECRET: SIGNING_SECRET,
            SLACK_API_URL: slack.apiUrl,
            PORT: String(port),
            ADMIN_PORT: '0',
            CNGN_APPROVALS_CHANNEL: 'CAPPROVALS',
            CNGN_APPROVERS: APPROVER,
            CNGN_BASE_URL: sandbox.baseUrl,
            CNGN_API_KEY: sandbox.apiKey,
            CNGN_ENCRYPTION_KEY: sandbox.encryptionKey,
            CNGN_PRIVATE_KEY_FILE: sandbox.privateKeyFile,
            CNGN_WEBHOOK_SECRET: sandbox.webhookSecret,
            STORE_URL: storeUrl,
            LOG_LEVEL: 'info',
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        const exited = once(child, 'exit');
        defer(async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        });
        let log = '';
        await new Promise<void>((resolve, reject) => {
          child.stderr?.on('data', (chunk: Buffer) => {
            log += chunk.toString('utf8');
            if (log.includes('cngn-desk is running')) resolve();
          });
          void exited.then(() =>
            reject(new Error(`the bot exited before it was running: ${log.slice(-500)}`)),
          );
        });
        return { child, url: `http://127.0.0.1:${port}` };
      },
  )
  .extend('startBotInProcess', async ({ storeUrl, sandbox, slack, defer }) => async (): Promise<Bot> => {
    const store = await createStore(storeUrl);
    const config = testConfig(slack.apiUrl, {
      approvers: [APPROVER],
      service: {
        mode: 'service',
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.apiKey,
        encryptionKey: sandbox.encryptionKey,
        privateKey: sandbox.privateKey,
      },
      webhookSecret: sandbox.webhookSecret,
      storeUrl,
    });
    const bot = await startBot({ config, logger: silentLogger, store });
    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        await bot.stop();
        await store.close();
      })());
    defer(stop);
    return { ...bot, stop };
  });

const undeliveredNotices = (slack: FakeSlack) =>
  slack
    .callsTo('chat.postMessage')
    .filter((c) => c.body.channel === APPROVER && String(c.body.text).includes('was not delivered'));

test('tells the asker once, after a restart, that the export a kill -9 interrupted was not delivered', async ({
  slack,
  storeUrl,
  startChild,
  startBotInProcess,
}) => {
  // Something to export: one entry in the chain of the environment the bot will run in.
  const seeding = await createStore(storeUrl);
  await new AuditLog(seeding).append(ENVIRONMENT, {
    at: new Date(Date.now() - 60_000).toISOString(),
    requestId: 'AR-SEED',
    kind: 'withdraw',
    action: 'filed',
    actor: 'UREQ',
    amount: '1600.00',
  });
  await seeding.close();

  const { child, url } = await startChild();
  const upload = slack.hold('conversations.open');
  void slashCommand(
    { baseUrl: url, signingSecret: SIGNING_SECRET },
    { text: 'audit export 30d', userId: APPROVER, responseUrl: slack.responseUrl('export') },
  ).catch(() => undefined);
  await upload.arrived; // `export-requested` is written; the files are on their way
  child.kill('SIGKILL');
  await once(child, 'exit');
  upload.release();
  expect(slack.sharedFiles()).toEqual([]);
  expect(undeliveredNotices(slack)).toEqual([]);

  const restarted = await startBotInProcess();
  const told = await slack.waitFor(
    'chat.postMessage',
    (c) => c.body.channel === APPROVER && String(c.body.text).includes('was not delivered'),
  );
  expect(String(told.body.text)).toContain('/cngn audit export 30d');
  // The seeded step, and the policy and the sealing of what stood unsealed the first start put on the record.
  expect(String(told.body.text)).toContain('3 entries');
  const engine = restarted.approvals?.engine;
  const steps = (entries: AuditEntry[] | undefined) =>
    entries?.filter((e) => e.kind !== 'policy').map((e) => e.action);
  const actions = steps(await engine?.auditRange(undefined, undefined));
  expect(actions).toEqual(['filed', 'requests-sealed', 'export-requested', 'export-undelivered']);
  expect((await engine?.verifyAudit())?.ok).toBe(true);
  await restarted.stop();

  // Another start has nothing more to say about it.
  const again = await startBotInProcess();
  await again.approvals?.engine.tick();
  expect(undeliveredNotices(slack)).toHaveLength(1);
  const after = steps(await again.approvals?.engine.auditRange(undefined, undefined));
  expect(after).toEqual(['filed', 'requests-sealed', 'export-requested', 'export-undelivered']);
});
