// In Socket Mode (SLACK_APP_TOKEN set) Slack's traffic goes over the socket, and the passkey pages are
// served on the bot's HTTP port beside the webhooks route, as in HTTP mode: approvers' browsers reach
// the same port either way.
import { describe, expect } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { startBot } from '../../src/wiring/bot.js';
import { APPROVER_A, APPROVER_B, freePort } from '../slack/approvals/support.js';
import { botTest } from '../support/bot.js';
import { FakeSlack } from '../support/fake-slack.js';
import { FakeSocketMode } from '../support/fake-socket-mode.js';
import { testConfig } from '../support/harness.js';
import { bookOf, type PageHost, post, send } from './support.js';

/** The whole bot in Socket Mode with signed approvals on, its pages at http://localhost:<port>. */
async function startSocketBot(slack: FakeSlack) {
  const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
  const store = await createStore('memory://');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const signingUrl = `http://localhost:${port}`;
    const config = {
      ...testConfig(slack.apiUrl, {
        port,
        approvers: [APPROVER_A, APPROVER_B],
        signing: { rule: { mode: 'all' as const }, rpId: 'localhost', origin: signingUrl },
      }),
      slack: {
        botToken: 'xoxb-socket-test',
        signingSecret: undefined,
        appToken: 'xapp-socket-test',
        apiUrl: slack.apiUrl,
        mode: 'socket' as const,
      },
    };
    try {
      const bot = await startBot({ config, logger: silentLogger, store, sandbox, recordPolicy: false });
      const engine = bot.approvals?.engine;
      if (!engine) throw new Error('approvals are not wired');
      const stop = async () => {
        await bot.stop();
        await sandbox.stop();
        await store.close();
      };
      const app: PageHost & { store: typeof store; engine: typeof engine; stop(): Promise<void> } = {
        store,
        engine,
        signingUrl,
        port,
        stop,
      };
      return { app, bot };
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EADDRINUSE' || attempt >= 5) {
        await sandbox.stop();
        await store.close();
        throw error;
      }
    }
  }
}

const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('socketBot', { scope: 'file' }, async ({}, { onCleanup }) => {
    const slack = await FakeSlack.start();
    const socket = await FakeSocketMode.start();
    slack.on('apps.connections.open', () => ({ status: 200, body: { ok: true, url: socket.url } }));
    const started = await startSocketBot(slack);
    onCleanup(async () => {
      await started.app.stop();
      await socket.stop();
      await slack.stop();
    });
    return { ...started, socket };
  });

describe('the passkey pages in Socket Mode', () => {
  test('are served on the HTTP port beside the webhooks route', async ({ socketBot: { app, bot } }) => {
    expect(bot.slack.socketConnected()).toBe(true);
    expect(new URL(bot.url).port).toBe(String(app.port));
    const page = await send(app, '/passkeys/register?t=anything');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const token = await bookOf(app).issueLink({ page: 'register', user: APPROVER_A, team: 'T1' });
    const options = await post(app, '/passkeys/api/register/options', { token });
    expect(options.status).toBe(200);
    expect(options.json).toMatchObject({
      ok: true,
      user: { id: APPROVER_A },
      options: { rp: { id: 'localhost' } },
    });
    const redirected = await send(app, '/passkeys/sign?t=abc', { host: `127.0.0.1:${app.port}` });
    expect(redirected.headers.location).toBe(`${app.signingUrl}/passkeys/sign?t=abc`);
    // The webhooks route is served by the same server.
    const webhook = await send(app, '/webhooks/cngn', { method: 'POST', body: {} });
    expect(webhook.status).not.toBe(404);
  });
});
