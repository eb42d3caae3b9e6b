// An approved payment never waits on Slack: with chat.update left unanswered, the withdrawal is sent
// once all the same, and the message catches up when Slack answers again.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { startBot } from '../../../src/wiring/bot.js';
import { approvalsTest } from '../../support/approvals-bot.js';
import type { FakeSlack } from '../../support/fake-slack.js';
import { SIGNING_SECRET, testConfig } from '../../support/harness.js';
import { APPROVER_A, type ApprovalApp, adminUrlOf, approve, fileWithdrawal, waitUntil } from './support.js';

/** Slack's API in front of the fake: calls to one method get no answer until released. */
class StalledSlack {
  private server!: Server;
  private held: Array<() => Promise<void>> = [];
  private stalling = new Set<string>();
  url = '';

  constructor(private readonly fake: FakeSlack) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/`;
  }

  stall(method: string): void {
    this.stalling.add(method);
  }

  get stalled(): number {
    return this.held.length;
  }

  /** Answer everything held so far, and stall nothing from now on. */
  async answer(): Promise<void> {
    this.stalling.clear();
    const held = this.held.splice(0);
    await Promise.all(held.map((forward) => forward()));
  }

  async stop(): Promise<void> {
    await this.answer();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const method = (req.url ?? '').replace(/^\/api\//, '');
    const forward = async () => {
      const answer = await fetch(`${this.fake.apiUrl}${method}`, {
        method: req.method ?? 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/x-www-form-urlencoded' },
        body: Buffer.concat(chunks),
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(await answer.text());
    };
    if (this.stalling.has(method)) this.held.push(forward);
    else await forward();
  }
}

/**
 * `stalledSlack`, Slack's API in front of the test's fake Slack; `bot`, the whole bot talking to Slack
 * through it (not startApp: that one talks to the fake directly), on the test's sandbox and store.
 */
const test = approvalsTest
  .extend('stalledSlack', async ({ slack, defer }) => {
    const stalled = new StalledSlack(slack);
    await stalled.start();
    defer(() => stalled.stop());
    return stalled;
  })
  .extend('bot', async ({ stalledSlack, sandbox, slack, store, defer }) => {
    const config = testConfig(stalledSlack.url, {
      approvers: [APPROVER_A],
      webhookSecret: sandbox.webhookSecret,
    });
    const bot = await startBot({ config, logger: silentLogger, store, sandbox });
    defer(async () => {
      await stalledSlack.answer();
      await bot.stop();
    });
    if (!bot.approvals?.presenter) throw new Error('approvals are not wired');
    const presenter = bot.approvals.presenter;
    const app: ApprovalApp = {
      sandbox,
      store,
      slack,
      engine: bot.approvals.engine,
      client: bot.client,
      sender: { baseUrl: bot.url, signingSecret: SIGNING_SECRET },
      baseUrl: bot.url,
      adminUrl: adminUrlOf(bot),
      metricsUrl: `${adminUrlOf(bot)}/metrics`,
      stop: () => bot.stop(),
    };
    return { app, presenter };
  });

test('sends an approved withdrawal once while Slack never answers the message update', async ({
  sandbox,
  slack: fake,
  stalledSlack: slack,
  bot: { app, presenter },
}) => {
  const id = await fileWithdrawal(app, '250');
  await presenter.idle();
  slack.stall('chat.update');
  await approve(app, id, APPROVER_A);
  await waitUntil(async () => (await app.engine.get(id))?.state === 'sent', 'the withdrawal to be sent');
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
  expect(slack.stalled).toBeGreaterThan(0); // Slack has still not answered
  // Slack answers again: the message catches up with the request as stored.
  await slack.answer();
  await app.engine.idle();
  await presenter.idle();
  const ts = (await app.engine.get(id))?.announcement?.ts;
  const last = fake
    .callsTo('chat.update')
    .filter((c) => c.body.ts === ts)
    .at(-1);
  expect(JSON.stringify(last?.body.blocks)).toContain('Sent, waiting for the final status');
  expect(sandbox.count('POST', '/v1/api/withdraw')).toBe(1);
});
