// The bot as `npm start` runs it in Socket Mode (SLACK_APP_TOKEN set): Slack's traffic over the socket,
// the routes it still serves on PORT (webhooks, callbacks) on its own server, and the probes on the
// admin port. A request target that is not a path gets 400 and a log line on each of those routes, and
// the process keeps serving both sides. Slack closing the socket does not make the bot unready.
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { describe, expect } from 'vitest';
import { botTest } from '../../support/bot.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { FakeSocketMode } from '../../support/fake-socket-mode.js';
import { bundledMain } from '../../support/node-entry.js';
import { freePort } from '../approvals/support.js';

/** The bot's process as `npm start` runs it: where it listens, and every JSON line it wrote. */
interface SpawnedBot {
  child: ChildProcess;
  url: string;
  adminUrl: string;
  entries: Array<Record<string, unknown>>;
}

/** One HTTP request with the target exactly as given (no client-side normalising). */
function raw(bot: SpawnedBot, method: string, target: string): Promise<number> {
  const { hostname, port } = new URL(bot.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path: target }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

function logged(bot: SpawnedBot, message: RegExp): Array<Record<string, unknown>> {
  return bot.entries.filter((e) => message.test(String(e.message)));
}

async function until<T>(
  bot: SpawnedBot,
  read: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 50_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (bot.child.exitCode !== null) throw new Error(`the bot exited (${bot.child.exitCode}) before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Where a fixture hands what it started, to be stopped after its test or file. */
type OnCleanup = (cleanup: () => Promise<void> | void) => void;

/** The fake Socket Mode end that `slack`'s apps.connections.open hands out, stopped by `onCleanup`. */
async function socketFor(slack: FakeSlack, onCleanup: OnCleanup): Promise<FakeSocketMode> {
  const socket = await FakeSocketMode.start();
  onCleanup(() => socket.stop());
  slack.on('apps.connections.open', () => ({ status: 200, body: { ok: true, url: socket.url } }));
  return socket;
}

/** The bot's process on `slack`, once it says it is running; stopped (SIGTERM) by `onCleanup`. */
async function spawnBot(slack: FakeSlack, onCleanup: OnCleanup): Promise<SpawnedBot> {
  const child = spawn(process.execPath, [await bundledMain()], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      ADMIN_PORT: String(await freePort()), // 0 would be no admin listener
      STORE_URL: 'memory://',
      LOG_LEVEL: 'info',
      SLACK_BOT_TOKEN: 'xoxb-socket-test',
      SLACK_APP_TOKEN: 'xapp-socket-test',
      SLACK_API_URL: slack.apiUrl,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  onCleanup(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
  const bot: SpawnedBot = { child, url: '', adminUrl: '', entries: [] };
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) bot.entries.push(JSON.parse(line));
  });
  const started = await until(bot, () => logged(bot, /^Slack app started$/)[0], 'the Slack app to start');
  expect(started.mode).toBe('socket');
  bot.url = String(started.url);
  const running = await until(bot, () => logged(bot, /is running/)[0], 'the bot to say it is running');
  bot.adminUrl = String(running.admin);
  return bot;
}

/**
 * One of each for the whole file: `slack`, the fake Slack; `socket`, the fake Socket Mode end that
 * apps.connections.open hands out; `bot`, the bot's process on them, stopped (SIGTERM) before them.
 * The bot starts with the file's first test (auto), as a test reads what it did from the start.
 * `ownBot`: the three of the test's own, for a test that closes the socket.
 */
const test = botTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('slack', { scope: 'file' }, async ({}, { onCleanup }) => {
    const slack = await FakeSlack.start();
    onCleanup(() => slack.stop());
    return slack;
  })
  .extend('socket', { scope: 'file' }, async ({ slack }, { onCleanup }) => socketFor(slack, onCleanup))
  .extend('bot', { scope: 'file', auto: true }, async ({ slack, socket: _ }, { onCleanup }) =>
    spawnBot(slack, onCleanup),
  )
  .extend('ownBot', async ({ defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    const socket = await socketFor(slack, defer);
    return { socket, bot: await spawnBot(slack, defer) };
  });

describe('Socket Mode: the routes on PORT', () => {
  test('connects over the socket that apps.connections.open (at SLACK_API_URL) hands out', async ({
    slack,
    socket,
  }) => {
    expect(slack.callsTo('apps.connections.open')).toHaveLength(1);
    expect(socket.connections).toBe(1);
  });

  test.for<[string, string]>([
    ['GET', '//'],
    ['GET', '/slack%zz'],
    ['GET', '/webhooks/%E0%A4%A'],
    ['POST', '/webhooks/cngn%zz'],
    ['POST', '/callbacks/bridge/%zz'],
  ])('answers %s %s with 400 and a log line', async ([method, target], { bot }) => {
    const before = logged(bot, /refused a request whose target is not a path/).length;
    expect(await raw(bot, method, target)).toBe(400);
    const after = await until(
      bot,
      () => {
        const lines = logged(bot, /refused a request whose target is not a path/);
        return lines.length > before ? lines : undefined;
      },
      'the log line',
    );
    expect(after.at(-1)).toMatchObject({ level: 'warn', status: 400 });
  });

  test('keeps running: webhooks and the admin port answer, and a slash command over the socket is acked and answered', async ({
    slack,
    socket,
    bot,
  }) => {
    expect((await fetch(`${bot.adminUrl}/healthz`)).status).toBe(200);
    expect(await raw(bot, 'GET', '/healthz')).toBe(404); // no probe on the public port
    // Unsigned (no CNGN_WEBHOOK_SECRET match): refused as a webhook, not as a target.
    expect(await raw(bot, 'POST', '/webhooks/cngn')).toBe(401);
    socket.sendCommand('env-help-1', 'help', slack.responseUrl('socket-help'));
    await socket.waitFor((m) => m.envelope_id === 'env-help-1');
    const answer = await slack.waitFor('response_url:socket-help');
    expect(JSON.stringify(answer.body)).toContain('/cngn');
    expect(bot.child.exitCode).toBeNull();
    expect(logged(bot, /uncaught|unhandled/)).toEqual([]);
  });

  test('stays ready when Slack closes the socket (webhooks are still stored), and says so on /healthz and in metrics', async ({
    ownBot: { socket, bot },
  }) => {
    const get = async (path: string) => {
      const response = await fetch(`${bot.adminUrl}${path}`);
      return {
        status: response.status,
        body: path === '/metrics' ? await response.text() : await response.json(),
      };
    };
    expect(await get('/readyz')).toEqual({ status: 200, body: { ready: true } });
    expect((await get('/metrics')).body).toMatch(/^cngn_slack_socket_connected 1$/m);
    await socket.stop(); // Slack's end goes away; the bot tries to connect again meanwhile
    const down = await until(
      bot,
      async () => {
        const answer = await get('/healthz');
        return answer.body.ok === false ? answer : undefined;
      },
      '/healthz to say the socket is closed',
    );
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({
      ready: true,
      warnings: ['the Socket Mode connection to Slack is not open'],
    });
    expect(await get('/readyz')).toEqual({ status: 200, body: { ready: true } });
    expect((await get('/metrics')).body).toMatch(/^cngn_slack_socket_connected 0$/m);
    expect((await get('/livez')).status).toBe(200);
  });
});
