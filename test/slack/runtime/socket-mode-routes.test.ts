// The bot as `npm start` runs it in Socket Mode (SLACK_APP_TOKEN set): Slack's traffic over the socket,
// the routes it still serves on PORT (webhooks, callbacks) on its own server, and the probes on the
// admin port. A request target that is not a path gets 400 and a log line on each of those routes, and
// the process keeps serving both sides. Slack closing the socket does not make the bot unready.
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../support/fake-slack.js';
import { FakeSocketMode } from '../../support/fake-socket-mode.js';

let slack: FakeSlack;
let socket: FakeSocketMode;
let child: ChildProcess;
let url: string;
let adminUrl: string;
const entries: Array<Record<string, unknown>> = [];

/** One HTTP request with the target exactly as given (no client-side normalising). */
function raw(method: string, target: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path: target }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

function logged(message: RegExp): Array<Record<string, unknown>> {
  return entries.filter((e) => message.test(String(e.message)));
}

async function until<T>(
  read: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (child.exitCode !== null) throw new Error(`the bot exited (${child.exitCode}) before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  slack = await FakeSlack.start();
  socket = await FakeSocketMode.start();
  slack.on('apps.connections.open', () => ({ status: 200, body: { ok: true, url: socket.url } }));
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      ADMIN_PORT: '0',
      STORE_URL: 'memory://',
      LOG_LEVEL: 'info',
      SLACK_BOT_TOKEN: 'xoxb-socket-test',
      SLACK_APP_TOKEN: 'xapp-socket-test',
      SLACK_API_URL: slack.apiUrl,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) entries.push(JSON.parse(line));
  });
  const started = await until(() => logged(/^Slack app started$/)[0], 'the Slack app to start');
  expect(started.mode).toBe('socket');
  url = String(started.url);
  const running = await until(() => logged(/is running/)[0], 'the bot to say it is running');
  adminUrl = String(running.admin);
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await socket?.stop();
  await slack?.stop();
});

describe('Socket Mode: the routes on PORT', () => {
  it('connects over the socket that apps.connections.open (at SLACK_API_URL) hands out', async () => {
    expect(slack.callsTo('apps.connections.open')).toHaveLength(1);
    expect(socket.connections).toBe(1);
  });

  it.each([
    ['GET', '//'],
    ['GET', '/slack%zz'],
    ['GET', '/webhooks/%E0%A4%A'],
    ['POST', '/webhooks/cngn%zz'],
    ['POST', '/callbacks/bridge/%zz'],
  ])('answers %s %s with 400 and a log line', async (method, target) => {
    const before = logged(/refused a request whose target is not a path/).length;
    expect(await raw(method, target)).toBe(400);
    const after = await until(() => {
      const lines = logged(/refused a request whose target is not a path/);
      return lines.length > before ? lines : undefined;
    }, 'the log line');
    expect(after.at(-1)).toMatchObject({ level: 'warn', status: 400 });
  });

  it('keeps running: webhooks and the admin port answer, and a slash command over the socket is acked and answered', async () => {
    expect((await fetch(`${adminUrl}/healthz`)).status).toBe(200);
    expect(await raw('GET', '/healthz')).toBe(404); // no probe on the public port
    // Unsigned (no CNGN_WEBHOOK_SECRET match): refused as a webhook, not as a target.
    expect(await raw('POST', '/webhooks/cngn')).toBe(401);
    socket.sendCommand('env-help-1', 'help', slack.responseUrl('socket-help'));
    await socket.waitFor((m) => m.envelope_id === 'env-help-1');
    const answer = await slack.waitFor('response_url:socket-help');
    expect(JSON.stringify(answer.body)).toContain('/cngn');
    expect(child.exitCode).toBeNull();
    expect(logged(/uncaught|unhandled/)).toEqual([]);
  });

  it('stays ready when Slack closes the socket (webhooks are still stored), and says so on /healthz and in metrics', async () => {
    const get = async (path: string) => {
      const response = await fetch(`${adminUrl}${path}`);
      return {
        status: response.status,
        body: path === '/metrics' ? await response.text() : await response.json(),
      };
    };
    expect(await get('/readyz')).toEqual({ status: 200, body: { ready: true } });
    expect((await get('/metrics')).body).toMatch(/^cngn_slack_socket_connected 1$/m);
    await socket.stop(); // Slack's end goes away; the bot tries to connect again meanwhile
    const down = await until(async () => {
      const answer = await get('/healthz');
      return answer.body.ok === false ? answer : undefined;
    }, '/healthz to say the socket is closed');
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
