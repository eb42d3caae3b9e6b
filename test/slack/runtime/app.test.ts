// Bolt's own log lines (receiver, Web API client, listeners) go through our JSON logger, redacted.
import { request } from 'node:http';
import { type CustomRoute, LogLevel } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import { describe, expect } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { boltLogger } from '../../../src/slack/runtime/bolt-logger.js';
import { createSlackTraffic } from '../../../src/slack/runtime/in-flight.js';
import { capturedLog } from '../../support/captured-log.js';
import { FakeSocketMode } from '../../support/fake-socket-mode.js';
import { httpAppOptions, slackAppTest as test } from '../../support/slack-app.js';
import { slashCommand } from '../../support/slack-requests.js';

const SIGNING_SECRET = 'app-test-signing-secret';

describe('Bolt logging', () => {
  test('writes Bolt lines as JSON through our logger, with secrets redacted', () => {
    const { logger: ours, lines, entries } = capturedLog('debug', { secrets: [SIGNING_SECRET] });
    const logger = boltLogger(ours);
    logger.setLevel(LogLevel.WARN);
    logger.debug('dropped below the level Bolt set');
    logger.error(
      'Slack API error: invalid_auth for xoxb-1-2-secret',
      new Error(`signed with ${SIGNING_SECRET}`),
    );
    expect(lines).toHaveLength(1);
    const entry = entries[0] ?? {};
    expect(entry).toMatchObject({ level: 'error', source: 'bolt' });
    expect(String(entry.message)).toContain('Slack API error: invalid_auth');
    expect(lines[0]).not.toContain('xoxb-1-2-secret');
    expect(lines[0]).not.toContain(SIGNING_SECRET);
    expect(logger.getLevel()).toBe(LogLevel.WARN);
  });

  test("leaves people's e-mail addresses out of Bolt's debug dumps of users.info and users.profile.get", async ({
    slack,
  }) => {
    const profile = { real_name: 'Ada Obi', email: 'ada.obi@example.ng', phone: '' };
    slack.on('users.info', () => ({ body: { ok: true, user: { id: 'UADA', name: 'ada', profile } } }));
    slack.on('users.profile.get', () => ({ body: { ok: true, profile } }));
    const { logger: ours, lines } = capturedLog('debug');
    const logger = boltLogger(ours);
    logger.setLevel(LogLevel.DEBUG); // as the bot does at LOG_LEVEL=debug
    const client = new WebClient('xoxb-app-test', {
      slackApiUrl: `${slack.apiUrl.replace(/\/+$/, '')}/`,
      logger,
      logLevel: LogLevel.DEBUG,
    });
    await client.users.info({ user: 'UADA' });
    await client.users.profile.get({ user: 'UADA' });
    const dumps = lines.filter((line) => line.includes('http request result'));
    expect(dumps).toHaveLength(2);
    expect(dumps[0]).toContain('Ada Obi'); // the dump is there, the address is not
    expect(lines.join('\n')).not.toContain('ada.obi@example.ng');
    expect(lines.join('\n')).not.toMatch(/example\.ng/);
  });

  test('logs the refusal of a forged request as a JSON line through our logger', async ({
    slack,
    startSlackApp,
  }) => {
    const { logger, entries } = capturedLog('info', { secrets: [SIGNING_SECRET] });
    const app = await startSlackApp(
      httpAppOptions(slack, SIGNING_SECRET, {
        logger,
        logLevel: 'info',
      }),
    );
    const response = await slashCommand(
      { baseUrl: app.url, signingSecret: SIGNING_SECRET },
      { text: 'balance', responseUrl: slack.responseUrl(), signature: 'v0=forged' },
    );
    expect(response.status).toBe(401);
    // The request guard refuses it with Bolt's own check before the receiver sees it, and says why.
    const refusal = entries.find((e) => e.status === 401);
    expect(refusal).toMatchObject({ level: 'warn', message: 'refused a request to /slack/events' });
    expect(String(refusal?.reason)).toMatch(/signature/i);
  });
});

describe('a listener that throws', () => {
  test("is logged as one line with the error's stack and Slack's id of the request", async ({
    slack,
    startSlackApp,
  }) => {
    const { logger, entries } = capturedLog('warn');
    const app = await startSlackApp(
      httpAppOptions(slack, SIGNING_SECRET, {
        logger,
        plugins: [
          (bolt) =>
            bolt.command('/cngn', async ({ ack }) => {
              await ack();
              throw new TypeError('a listener bug');
            }),
        ],
      }),
    );
    const response = await slashCommand(
      { baseUrl: app.url, signingSecret: SIGNING_SECRET },
      { text: 'balance', responseUrl: slack.responseUrl(), triggerId: '1337.42.listener' },
    );
    expect(response.status).toBe(200);
    expect(entries.filter((entry) => entry.level === 'error')).toEqual([
      expect.objectContaining({
        message: 'unhandled error in a Slack listener',
        slackRequestId: '1337.42.listener',
        error: expect.objectContaining({
          type: 'TypeError',
          message: 'a listener bug',
          stack: expect.stringContaining('app.test.ts'),
        }),
      }),
    ]);
  });
});

/** A raw request, with the target exactly as given (fetch would normalise it). */
function rawRequest(url: string, method: string, target: string): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: target }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

const bridgeRoute: CustomRoute = {
  path: '/callbacks/bridge/:token',
  method: ['POST'],
  handler: (_req, res) => {
    res.writeHead(200);
    res.end('ok');
  },
};

describe.each([
  ['without Slack (routes only)', { botToken: undefined, signingSecret: undefined, mode: 'http' as const }],
  ['in HTTP mode', { botToken: 'xoxb-app-test', signingSecret: SIGNING_SECRET, mode: 'http' as const }],
])('a request target that is not a path, %s', (_name, slackConfig) => {
  test.for<[string, string]>([
    ['POST', '/callbacks/bridge/%zz'],
    ['GET', '//'],
    ['GET', '/%E0%A4%A'],
  ])(
    '%s %s gets 400 and a log line, and the process keeps serving',
    async ([method, target], { slack, startSlackApp }) => {
      const { logger, entries } = capturedLog('warn');
      const app = await startSlackApp({
        slack: { ...slackConfig, appToken: undefined, apiUrl: slack.apiUrl },
        port: 0,
        logger,
        routes: [bridgeRoute],
      });
      expect(await rawRequest(app.url, method, target)).toBe(400);
      expect(entries).toContainEqual(
        expect.objectContaining({ level: 'warn', message: 'refused a request whose target is not a path' }),
      );
      expect(await rawRequest(app.url, 'POST', '/callbacks/bridge/abc')).toBe(200);
      expect((await fetch(`${app.url}/livez`)).status).toBe(404); // the probes are on the admin port
    },
  );
});

/** Routes that say what they were given, and one whose handler fails after it was called. */
const echoRoutes: CustomRoute[] = [
  {
    path: '/callbacks/echo/:token',
    method: 'post',
    handler: (req, res) => {
      res.writeHead(200);
      res.end(`token ${(req as typeof req & { params?: Record<string, string> }).params?.token}`);
    },
  },
  {
    path: '/callbacks/broken',
    method: ['POST'],
    handler: async () => {
      await Promise.resolve();
      throw new Error('a route bug');
    },
  },
];

describe.each([
  ['without Slack (routes only)', { botToken: undefined, signingSecret: undefined, mode: 'http' as const }],
  ['in HTTP mode', { botToken: 'xoxb-app-test', signingSecret: SIGNING_SECRET, mode: 'http' as const }],
])('extra routes, %s', (_name, slackConfig) => {
  test('get their path parameters, take the method in any case, and a failing handler gets 500 and a line', async ({
    slack,
    startSlackApp,
  }) => {
    const { logger, entries } = capturedLog('warn');
    const app = await startSlackApp({
      slack: { ...slackConfig, appToken: undefined, apiUrl: slack.apiUrl },
      port: 0,
      logger,
      routes: echoRoutes,
    });
    const echoed = await fetch(`${app.url}/callbacks/echo/t-1`, { method: 'POST', body: '{}' });
    expect(await echoed.text()).toBe('token t-1');
    expect((await fetch(`${app.url}/callbacks/broken`, { method: 'POST', body: '{}' })).status).toBe(500);
    expect(entries).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'a request to an HTTP route failed' }),
    );
    // Still serving, and a route's path with another method is not that route.
    expect((await fetch(`${app.url}/callbacks/echo/t-2`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${app.url}/callbacks/echo/t-2`)).status).toBe(404);
  });
});

describe('Slack traffic in Socket Mode', () => {
  test('counts a request over the socket as being acked until its listener has returned', async ({
    slack,
    startSlackApp,
    defer,
  }) => {
    const socket = await FakeSocketMode.start();
    slack.on('apps.connections.open', () => ({ status: 200, body: { ok: true, url: socket.url } }));
    let now = 0;
    const traffic = createSlackTraffic(5, () => now);
    const seen: boolean[] = [];
    defer(() => socket.stop());
    await startSlackApp({
      slack: {
        botToken: 'xoxb-app-test',
        signingSecret: undefined,
        appToken: 'xapp-app-test',
        apiUrl: slack.apiUrl,
        mode: 'socket',
      },
      port: 0,
      logger: createLogger('silent'),
      traffic,
      plugins: [
        (bolt) =>
          bolt.command('/cngn', async ({ ack }) => {
            now += 10; // however long the ack takes, the request is still being acked
            seen.push(traffic.busy());
            await ack();
            seen.push(traffic.busy());
          }),
      ],
    });
    socket.sendCommand('env-traffic-1', 'help', slack.responseUrl('socket-traffic'));
    await socket.waitFor((m) => m.envelope_id === 'env-traffic-1');
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([true, true]);
    now += 5; // the quiet window after its answer
    expect(traffic.busy()).toBe(false);
  });
});
