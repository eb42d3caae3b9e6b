// Over Socket Mode each envelope is checked as the request guard checks a body over HTTP, before Bolt
// reads it: one of a shape Bolt does not expect is acked, logged with its reason (and nothing of what it
// carried), and reaches no listener; the connection goes on to answer the next one. An envelope the
// Socket Mode client itself would fail on (an event without its event) is refused the same way, before
// the client reads it: acked, so Slack does not send it again, and no unhandled rejection.
import { App, SocketModeReceiver } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createSlackTraffic, type SlackTraffic } from '../../../src/slack/runtime/in-flight.js';
import { REFUSED_FORM_TEXT, refusedFormView } from '../../../src/slack/runtime/refused-form.js';
import { guardSocketEvents } from '../../../src/slack/runtime/socket-guard.js';
import { capturedLog } from '../../support/captured-log.js';
import { FakeSocketMode } from '../../support/fake-socket-mode.js';
import { slackAppTest } from '../../support/slack-app.js';
import {
  blockActionPayload,
  newTriggerId,
  textValue,
  viewSubmissionPayload,
} from '../../support/slack-requests.js';

/** Slack's verification token, which payloads still carry: it must not reach a log line. */
const PAYLOAD_TOKEN = 'payload-token-not-for-logs';
const CLICK = 'probe.click';

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { inner: value };
  return value;
}

const command = (fields: Record<string, unknown>) => ({
  token: PAYLOAD_TOKEN,
  command: '/cngn',
  text: 'help',
  user_id: 'UREQ',
  channel_id: 'CCMD',
  team_id: 'T1',
  trigger_id: newTriggerId(),
  ...fields,
});

const click = (fields: Record<string, unknown>) => ({
  ...blockActionPayload({ actionId: CLICK, value: 'v', channelId: 'CAPPROVALS', messageTs: '1.0' }),
  token: PAYLOAD_TOKEN,
  ...fields,
});

const MALFORMED: Array<[string, 'slash_commands' | 'interactive', unknown, RegExp]> = [
  [
    'a click naming no one, in no workspace',
    'interactive',
    click({ user: undefined, team: null }),
    /^block_actions: user: /,
  ],
  ['an empty payload', 'interactive', null, /^the body is not a JSON object$/],
  [
    'a command whose response_url is not a web address',
    'slash_commands',
    command({ response_url: 'javascript:alert(1)' }),
    /^slash command: response_url: /,
  ],
  [
    'a click nested too deep',
    'interactive',
    click({ message: nested(80) }),
    /^the body nests deeper than 64 levels$/,
  ],
];

/** Whole envelopes the Socket Mode client reads fields of before Bolt's turn. */
const UNDISPATCHABLE: Array<[string, Record<string, unknown>, RegExp]> = [
  [
    'an event envelope without its event',
    { type: 'events_api', payload: { token: PAYLOAD_TOKEN, type: 'event_callback', team_id: 'T1' } },
    /^events_api: payload\.event: /,
  ],
  ['an event envelope without a payload', { type: 'events_api', payload: null }, /^events_api: payload: /],
  [
    "an event whose type names one of the client's own events",
    {
      type: 'events_api',
      payload: { token: PAYLOAD_TOKEN, type: 'event_callback', team_id: 'T1', event: { type: 'ws_message' } },
    },
    /^events_api: payload\.event\.type: /,
  ],
  [
    'an envelope of a type Slack does not send',
    { type: 'ws_message', payload: { token: PAYLOAD_TOKEN } },
    /^type: /,
  ],
];

/** The bot's traffic count, on a clock of the test's, with how often each of its calls was made. */
function countedTraffic() {
  let now = 0;
  const inner = createSlackTraffic(5, () => now);
  const counts = { arrived: 0, acking: 0, answered: 0 };
  const traffic: SlackTraffic = {
    arrived() {
      counts.arrived += 1;
      inner.arrived();
    },
    acking() {
      counts.acking += 1;
      const answered = inner.acking();
      return () => {
        counts.answered += 1;
        answered();
      };
    },
    busy: () => inner.busy(),
  };
  return { traffic, counts, later: (ms: number) => (now += ms) };
}

const test = slackAppTest
  .extend('socket', async ({ slack, defer }) => {
    const socket = await FakeSocketMode.start();
    defer(() => socket.stop());
    slack.on('apps.connections.open', () => ({ status: 200, body: { ok: true, url: socket.url } }));
    return socket;
  })
  .extend('socketApp', async ({ slack, socket: _, startSlackApp }) => {
    const log = capturedLog('warn');
    const ran: string[] = [];
    const counted = countedTraffic();
    let client: SocketModeReceiver['client'] | undefined;
    await startSlackApp({
      slack: {
        botToken: 'xoxb-app-test',
        signingSecret: undefined,
        appToken: 'xapp-app-test',
        apiUrl: slack.apiUrl,
        mode: 'socket',
      },
      port: 0,
      logger: log.logger,
      traffic: counted.traffic,
      plugins: [
        (bolt) => {
          client = (bolt as unknown as { receiver: SocketModeReceiver }).receiver.client;
          bolt.command('/cngn', async ({ ack, command }) => {
            ran.push(`command ${command.text}`);
            await ack();
          });
          bolt.action(CLICK, async ({ ack }) => {
            ran.push('click');
            await ack();
          });
          bolt.view('probe.form', async ({ ack }) => {
            ran.push('form');
            await ack();
          });
        },
      ],
    });
    if (!client) throw new Error('the socket client was not reached');
    return { ...log, ran, counted, client };
  });

describe('Socket Mode: the envelope check', () => {
  test.for(MALFORMED)(
    'refuses %s: acked, logged with its reason, no listener runs, and the next request is answered',
    async ([, type, payload, reason], { socket, socketApp: { entries, lines, ran } }) => {
      socket.send({ envelope_id: 'env-bad', type, accepts_response_payload: true, payload });
      const ack = await socket.waitFor((m) => m.envelope_id === 'env-bad');
      expect(ack.payload).toEqual({});
      const refused = entries.filter((e) => e.message === 'refused a Slack request over Socket Mode');
      expect(refused).toEqual([
        expect.objectContaining({ level: 'warn', reason: expect.stringMatching(reason) }),
      ]);
      // The next envelope on the same connection reaches its listener.
      socket.sendCommand('env-good', 'status', 'https://hooks.slack.test/next');
      await socket.waitFor((m) => m.envelope_id === 'env-good');
      expect(ran).toEqual(['command status']);
      expect(lines.join('\n')).not.toContain(PAYLOAD_TOKEN);
      expect(entries.filter((e) => e.level === 'error')).toEqual([]);
    },
  );

  test('lets a well-formed click and command through to their listeners', async ({
    socket,
    socketApp: { entries, ran },
  }) => {
    socket.sendInteraction('env-click', click({}));
    await socket.waitFor((m) => m.envelope_id === 'env-click');
    socket.sendCommand('env-command', 'help', 'https://hooks.slack.test/help');
    await socket.waitFor((m) => m.envelope_id === 'env-command');
    expect(ran).toEqual(['click', 'command help']);
    expect(entries).toEqual([]);
  });

  test.for(UNDISPATCHABLE)(
    'refuses %s before the Socket Mode client reads it: acked, logged once, no unhandled rejection',
    async ([, envelope, reason], { socket, socketApp: { entries, lines, ran } }) => {
      const rejections: unknown[] = [];
      const onRejection = (error: unknown) => rejections.push(error);
      process.on('unhandledRejection', onRejection);
      try {
        socket.send({ envelope_id: 'env-bad', accepts_response_payload: false, ...envelope });
        const ack = await socket.waitFor((m) => m.envelope_id === 'env-bad');
        expect(ack.payload).toEqual({});
        socket.sendCommand('env-good', 'status', 'https://hooks.slack.test/next');
        await socket.waitFor((m) => m.envelope_id === 'env-good');
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off('unhandledRejection', onRejection);
      }
      expect(rejections).toEqual([]);
      const refused = entries.filter((e) => e.message === 'refused a Slack request over Socket Mode');
      expect(refused).toEqual([
        expect.objectContaining({
          level: 'warn',
          reason: expect.stringMatching(reason),
          envelopeId: 'env-bad',
        }),
      ]);
      expect(ran).toEqual(['command status']);
      expect(socket.received.filter((m) => m.envelope_id === 'env-bad')).toHaveLength(1);
      expect(lines.join('\n')).not.toContain(PAYLOAD_TOKEN);
      expect(entries.filter((e) => e.level === 'error')).toEqual([]);
    },
  );

  test('counts each refused envelope as traffic that arrived, none left being acked, as the HTTP guard does', async ({
    socket,
    socketApp: { counted },
  }) => {
    const { counts, traffic, later } = counted;
    // Refused where Bolt would take it, and where the socket client would read it.
    socket.sendInteraction('env-bad-payload', null);
    await socket.waitFor((m) => m.envelope_id === 'env-bad-payload');
    socket.send({ envelope_id: 'env-no-event', type: 'events_api', payload: { type: 'event_callback' } });
    await socket.waitFor((m) => m.envelope_id === 'env-no-event');
    expect(counts).toEqual({ arrived: 2, acking: 0, answered: 0 });
    expect(traffic.busy()).toBe(true);
    later(5);
    expect(traffic.busy()).toBe(false);

    socket.sendCommand('env-good', 'status', 'https://hooks.slack.test/next');
    await socket.waitFor((m) => m.envelope_id === 'env-good');
    await new Promise((resolve) => setImmediate(resolve));
    expect(counts).toEqual({ arrived: 3, acking: 1, answered: 1 });
    later(5);
    expect(traffic.busy()).toBe(false);
  });

  test('keeps a refused form open: the error on its first field, or a notice over it when it has none', async ({
    socket,
    socketApp: { entries, ran },
  }) => {
    // A real person's form that fails the check (nested too deep): nothing may be filed, and the form
    // must not close as a filed one does. The same answer as over HTTP (request-guard.test.ts).
    const withField = viewSubmissionPayload({
      callbackId: 'probe.form',
      values: {
        'probe.amount': { 'probe.amount': textValue('1500') },
        'probe.note': { deep: nested(80) as Record<string, unknown> },
      },
    });
    socket.sendInteraction('env-form', withField);
    const errors = await socket.waitFor((m) => m.envelope_id === 'env-form');
    expect(errors.payload).toEqual({
      response_action: 'errors',
      errors: { 'probe.amount': REFUSED_FORM_TEXT },
    });

    const noField = viewSubmissionPayload({ callbackId: 'probe.form', values: {} });
    socket.sendInteraction('env-form-bare', { ...noField, message: nested(80) });
    const pushed = await socket.waitFor((m) => m.envelope_id === 'env-form-bare');
    expect(pushed.payload).toEqual({ response_action: 'push', view: refusedFormView() });
    expect(ran).toEqual([]);
    expect(entries.filter((e) => e.message === 'refused a Slack request over Socket Mode')).toHaveLength(2);
  });
});

describe('Socket Mode: what the guard relies on in the socket client', () => {
  const socketApp = () => {
    const receiver = new SocketModeReceiver({ appToken: 'xapp-unstarted' });
    const app = new App({ receiver, token: 'xoxb-unstarted', tokenVerificationEnabled: false });
    return { app, client: receiver.client };
  };

  it.for([0, 2])(
    'refuses to start when the client has %i ws_message handlers, not its one, naming the library version',
    (count) => {
      const { app, client } = socketApp();
      client.removeAllListeners('ws_message');
      for (let i = 0; i < count; i++) client.on('ws_message', () => undefined);
      const { logger } = capturedLog('warn');
      expect(() => guardSocketEvents(app, client, { logger })).toThrow(
        new RegExp(`^@slack/socket-mode \\d+\\.\\d+\\.\\d+ has ${count} ws_message handlers`),
      );
    },
  );

  test('keeps the guard the only handler after Slack asks for a new connection, and answers once', {
    timeout: 30_000,
  }, async ({ socket, socketApp: { client, entries, ran } }) => {
    const guard = client.listeners('ws_message');
    expect(guard).toHaveLength(1);
    // The client waits its pong timeout (5 s by default) before it reconnects; the wait proves nothing.
    (client as unknown as { clientPingTimeoutMS: number }).clientPingTimeoutMS = 250;
    const reconnected = new Promise<void>((resolve) => client.once('connected', () => resolve()));
    socket.send({
      type: 'disconnect',
      reason: 'refresh_requested',
      debug_info: { host: 'fake-socket-mode' },
    });
    await reconnected;
    expect(socket.connections).toBe(2);
    expect(client.listeners('ws_message')).toEqual(guard);

    socket.send({ envelope_id: 'env-no-event', type: 'events_api', payload: { type: 'event_callback' } });
    await socket.waitFor((m) => m.envelope_id === 'env-no-event');
    socket.sendCommand('env-good', 'status', 'https://hooks.slack.test/next');
    await socket.waitFor((m) => m.envelope_id === 'env-good');
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['command status']);
    expect(socket.received.filter((m) => m.envelope_id === 'env-good')).toHaveLength(1);
    expect(entries.filter((e) => e.message === 'refused a Slack request over Socket Mode')).toHaveLength(1);
  });
});

describe('Socket Mode: the ack of an envelope refused before the client reads it', () => {
  test('carries the whole envelope id, however long; the log line carries its first 100 characters', async ({
    socket,
    socketApp: { entries },
  }) => {
    const long = `env-${'e'.repeat(146)}`;
    socket.send({ envelope_id: long, type: 'events_api', payload: { type: 'event_callback' } });
    socket.sendCommand('env-good', 'status', 'https://hooks.slack.test/next');
    await socket.waitFor((m) => m.envelope_id === 'env-good');
    expect(socket.received.filter((m) => m.envelope_id === long)).toEqual([
      { envelope_id: long, payload: {} },
    ]);
    expect(entries).toEqual([expect.objectContaining({ envelopeId: long.slice(0, 100) })]);
  });

  test("is sent by the client's own ack, which the client reports as an outgoing message", async ({
    socket,
    socketApp: { client },
  }) => {
    const outgoing: unknown[] = [];
    const onOutgoing = (message: unknown) => outgoing.push(message);
    client.on('outgoing_message', onOutgoing);
    try {
      socket.send({ envelope_id: 'env-bad', type: 'events_api', payload: { type: 'event_callback' } });
      await socket.waitFor((m) => m.envelope_id === 'env-bad');
    } finally {
      client.off('outgoing_message', onOutgoing);
    }
    expect(outgoing).toEqual([{ envelope_id: 'env-bad', payload: {} }]);
  });

  test("logs Slack's notice that it is dropping the app's events as such, not as a malformed envelope", async ({
    socket,
    socketApp: { entries, lines },
  }) => {
    // Slack's documented payload (api.slack.com/events/app_rate_limited): no event inside.
    const payload = {
      token: PAYLOAD_TOKEN,
      type: 'app_rate_limited',
      team_id: 'T1',
      minute_rate_limited: 1518467820,
      api_app_id: 'A1',
    };
    socket.send({ envelope_id: 'env-limited', type: 'events_api', accepts_response_payload: false, payload });
    const ack = await socket.waitFor((m) => m.envelope_id === 'env-limited');
    expect(ack.payload).toEqual({});
    expect(entries).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'Slack is dropping events for this app (app_rate_limited)',
        envelopeId: 'env-limited',
      }),
    ]);
    expect(lines.join('\n')).not.toContain(PAYLOAD_TOKEN);
  });
});
