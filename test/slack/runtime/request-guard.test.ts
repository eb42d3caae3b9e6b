// A correctly signed request to /slack/events whose body is not a Slack request (null, an array, a bare
// value, nested without end, huge, a form whose payload is not an object) gets a 4xx and a log line;
// the bot keeps serving. Before the check, `null` made Bolt's receiver throw and the process exit.
import { request } from 'undici';
import { describe, expect } from 'vitest';
import { REFUSED_FORM_TEXT, refusedFormView } from '../../../src/slack/runtime/refused-form.js';
import { capturedLog } from '../../support/captured-log.js';
import { startHarness } from '../../support/harness.js';
import { harnessTest } from '../../support/harness-fixtures.js';
import {
  postSigned,
  signSlackBody,
  slashCommand,
  slashCommandBody,
  textValue,
  viewSubmissionPayload,
} from '../../support/slack-requests.js';

/**
 * One bot for the file (`h`), its log at warn and above (`log`, its parsed lines also as `lines`), and
 * the unhandled rejections of the process while it runs (`rejections`): the listener is put back after
 * the bot has stopped.
 */
const test = harnessTest
  .extend('log', { scope: 'file' }, async () => capturedLog('warn'))
  .extend('lines', { scope: 'file' }, async ({ log }) => log.entries)
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('rejections', { scope: 'file' }, async ({}, { onCleanup }) => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    onCleanup(async () => {
      process.off('unhandledRejection', onRejection);
    });
    return rejections;
  })
  .extend('h', { scope: 'file' }, async ({ log, rejections: _ }, { onCleanup }) => {
    const h = await startHarness({ logger: log.logger });
    onCleanup(() => h.stop());
    return h;
  });

const json = 'application/json';
const form = 'application/x-www-form-urlencoded';
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const payload = (value: string) => new URLSearchParams({ payload: value }).toString();

const twoTexts = `${new URLSearchParams({
  command: '/cngn',
  text: 'help',
  user_id: 'UREQ',
  channel_id: 'CCMD',
  team_id: 'T1',
  trigger_id: '1.1',
  response_url: 'http://127.0.0.1:1/response',
}).toString()}&text=balance`;

const cases: Array<{ name: string; body: string; contentType: string }> = [
  { name: 'null', body: 'null', contentType: json },
  { name: 'an array', body: '[]', contentType: json },
  { name: 'a string', body: '"x"', contentType: json },
  { name: 'a number', body: '42', contentType: json },
  { name: 'not JSON', body: '{"type":', contentType: json },
  { name: 'arrays 5,000 deep', body: deep(5_000), contentType: json },
  { name: 'objects 5,000 deep', body: `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`, contentType: json },
  {
    name: 'a huge event',
    body: JSON.stringify({ type: 'event_callback', event: { type: 'x', text: 'a'.repeat(3_000_000) } }),
    contentType: json,
  },
  { name: 'a form with payload=null', body: payload('null'), contentType: form },
  { name: 'a form with payload=[]', body: payload('[]'), contentType: form },
  { name: 'a form with a payload that is not JSON', body: payload('{'), contentType: form },
  { name: 'a form with a deep payload', body: payload(deep(5_000)), contentType: form },
  { name: 'a form with null as the event', body: payload('{"type":"x","event":null}'), contentType: form },
  { name: 'an event that is null', body: '{"type":"event_callback","event":null}', contentType: json },
  {
    name: 'actions that are not a list',
    body: payload('{"type":"block_actions","actions":5}'),
    contentType: form,
  },
  { name: 'a view that is null', body: payload('{"type":"view_submission","view":null}'), contentType: form },
  { name: 'an object Slack never sends', body: '{"hello":"world"}', contentType: json },
  { name: 'a slash command with two texts', body: twoTexts, contentType: form },
  {
    name: 'a slash command whose response_url is not a URL (found by fuzzing)',
    body: twoTexts.replace(/response_url=[^&]*/, 'response_url=false').replace('&text=balance', ''),
    contentType: form,
  },
  {
    name: 'a click whose response_url is not a URL',
    body: payload(
      JSON.stringify({
        type: 'block_actions',
        user: { id: 'UREQ' },
        actions: [{ action_id: 'tx.page.next', value: '2' }],
        response_url: 'false',
      }),
    ),
    contentType: form,
  },
  {
    name: 'a click whose container names its channel with a number',
    body: payload(
      JSON.stringify({
        type: 'block_actions',
        user: { id: 'UREQ' },
        actions: [{ action_id: 'approval.approve', value: 'AR-1:1' }],
        container: { type: 'message', channel_id: 42, message_ts: '1.2' },
      }),
    ),
    contentType: form,
  },
];

describe('requests to /slack/events that are not Slack requests', () => {
  test.for(cases)(
    'refuses $name with a 4xx and a log line, signed or not',
    async ({ body, contentType }, { h, lines }) => {
      const before = lines.length;
      const answer = await postSigned(h.sender, body, { contentType });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      const logged = lines.slice(before).map((l) => String(l.message));
      expect(logged.some((m) => /refused a request to \/slack\/events/.test(m))).toBe(true);
    },
  );

  test("names Slack's id of a refused request in its log line: an event's event_id, a command's trigger_id", async ({
    h,
    lines,
  }) => {
    const before = lines.length;
    const event = '{"type":"event_callback","event_id":"Ev0GUARDTEST","event":null}';
    expect((await postSigned(h.sender, event, { contentType: json })).status).toBe(400);
    expect((await postSigned(h.sender, twoTexts, { contentType: form })).status).toBe(400);
    expect(lines.slice(before)).toEqual([
      expect.objectContaining({
        message: 'refused a request to /slack/events',
        slackRequestId: 'Ev0GUARDTEST',
      }),
      expect.objectContaining({ message: 'refused a request to /slack/events', slackRequestId: '1.1' }),
    ]);
  });

  test('still answers /healthz and slash commands afterwards, and nothing went unhandled', async ({
    h,
    rejections,
  }) => {
    const health = await request(`${h.bot.adminUrl}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
    const help = await slashCommand(h.sender, { text: 'help', responseUrl: h.slack.responseUrl('help') });
    expect(help.status).toBe(200);
    const answer = await h.slack.waitFor('response_url:help');
    expect(JSON.stringify(answer.body)).toContain('/cngn');
    expect(rejections).toEqual([]);
  });

  test('keeps a signed form it refuses open, as over Socket Mode: the error on its first field, or a notice over it', async ({
    h,
    lines,
  }) => {
    const before = lines.length;
    const withField = viewSubmissionPayload({
      callbackId: 'withdraw.submit',
      values: { 'withdraw.amount': { 'withdraw.amount': textValue('1500') }, deep: JSON.parse(deep(80)) },
    });
    const errors = await postSigned(h.sender, payload(JSON.stringify(withField)), { contentType: form });
    expect(errors.status).toBe(200);
    expect(errors.json()).toEqual({
      response_action: 'errors',
      errors: { 'withdraw.amount': REFUSED_FORM_TEXT },
    });
    const bare = {
      ...viewSubmissionPayload({ callbackId: 'withdraw.submit', values: {} }),
      x: JSON.parse(deep(80)),
    };
    const pushed = await postSigned(h.sender, payload(JSON.stringify(bare)), { contentType: form });
    expect(pushed.status).toBe(200);
    expect(pushed.json()).toEqual({ response_action: 'push', view: refusedFormView() });
    expect(lines.slice(before)).toEqual([
      expect.objectContaining({ message: 'refused a request to /slack/events', status: 200 }),
      expect.objectContaining({ message: 'refused a request to /slack/events', status: 200 }),
    ]);
    expect(h.sandbox.count('POST', '/v1/api/withdraw')).toBe(0);
  });

  test('answers a request target that is not a path with 400, not a 500 from Bolt', async ({ h, lines }) => {
    const before = lines.length;
    const answer = await request(`${h.bot.url}//`, { method: 'GET' });
    await answer.body.dump();
    expect(answer.statusCode).toBe(400);
    expect(lines.slice(before).map((l) => l.level)).toEqual(['warn']);
  });

  test('refuses an unsigned body, even `null`, with 401 before reading it', async ({ h }) => {
    const answer = await postSigned(h.sender, 'null', { contentType: json, signature: 'v0=forged' });
    expect(answer.status).toBe(401);
  });

  test('refuses a signature in another case, of another version or missing, with 401', async ({ h }) => {
    const body = 'command=%2Fcngn&text=help';
    const good = signSlackBody(h.sender.signingSecret, body)['x-slack-signature'] ?? '';
    const upper = `v0=${good.slice(3).toUpperCase()}`;
    for (const signature of [upper, good.replace('v0=', 'v1='), `${good}00`, 'v0', '']) {
      expect((await postSigned(h.sender, body, { signature })).status).toBe(401);
    }
  });

  test("answers Slack's unsigned SSL check (200), `ssl_check=1` with or without its token", async ({ h }) => {
    for (const body of ['ssl_check=1&token=gIkuvaNzQIHg97ATvDxqgjtO', 'token=t&ssl_check=1', 'ssl_check=1']) {
      expect((await postSigned(h.sender, body, { signature: 'v0=forged' })).status).toBe(200);
    }
  });

  test('refuses an unsigned SSL check carrying anything more (401), with a log line', async ({
    h,
    lines,
  }) => {
    const command = new URLSearchParams({
      command: '/cngn',
      text: 'help',
      user_id: 'UREQ',
      channel_id: 'CCMD',
      trigger_id: '1.1',
      response_url: h.slack.responseUrl('smuggled'),
    });
    for (const body of [
      `ssl_check=1&${command}`,
      'ssl_check=1&token=a&token=b',
      'ssl_check=1&payload=%7B%7D',
      'ssl_check=1&token=x&extra=',
      // Past the 1000 pairs `node:querystring` reads by default, empty ones counted.
      `ssl_check=1${'&'.repeat(1000)}&payload=%7B%7D`,
    ]) {
      const before = lines.length;
      expect((await postSigned(h.sender, body, { signature: 'v0=forged' })).status).toBe(401);
      expect(lines.slice(before)).toEqual([
        expect.objectContaining({
          status: 401,
          reason: 'an unsigned SSL check carries more than Slack sends',
        }),
      ]);
    }
    // The same command, signed, is answered there: the refusal above kept it from Bolt.
    expect((await postSigned(h.sender, command.toString())).status).toBe(200);
    await h.slack.waitFor('response_url:smuggled');
    expect(h.slack.callsTo('response_url:smuggled')).toHaveLength(1);
  });

  test('refuses a signed request timestamped more than five minutes either way (401), and takes one within', async ({
    h,
    lines,
  }) => {
    const now = Math.floor(Date.now() / 1000);
    const at = async (offsetS: number) => {
      const before = lines.length;
      const answer = await slashCommand(h.sender, {
        text: 'help',
        responseUrl: h.slack.responseUrl(`clock${offsetS}`),
        timestamp: now + offsetS,
      });
      return { status: answer.status, logged: lines.slice(before).map((l) => String(l.reason ?? '')) };
    };
    expect(await at(3_600)).toEqual({ status: 401, logged: ['the request is timestamped in the future'] });
    expect((await at(6 * 60)).status).toBe(401);
    expect((await at(-6 * 60)).status).toBe(401);
    expect((await at(4 * 60)).status).toBe(200);
    expect((await at(-4 * 60)).status).toBe(200);
    await h.slack.waitFor(`response_url:clock${4 * 60}`);
    expect(h.slack.callsTo('response_url:clock3600')).toEqual([]);
  });

  test('still refuses a forged signature on a well-formed body (401)', async ({ h }) => {
    const answer = await slashCommand(h.sender, {
      text: 'help',
      responseUrl: h.slack.responseUrl('forged'),
      signature: 'v0=forged',
    });
    expect(answer.status).toBe(401);
  });

  test('checks the signature on every target Bolt takes for /slack/events (Bolt does not check it again)', async ({
    h,
  }) => {
    // Each target's path is /slack/events as Bolt reads it: a signed command there is run.
    for (const [i, target] of ['/slack/events?retry=1', '//elsewhere/slack/events'].entries()) {
      const body = slashCommandBody({ text: 'help', responseUrl: h.slack.responseUrl(`target${i}`) });
      const post = (signature?: string) =>
        request(`${h.sender.baseUrl}${target}`, {
          method: 'POST',
          headers: {
            'content-type': form,
            ...signSlackBody(h.sender.signingSecret, body),
            ...(signature === undefined ? {} : { 'x-slack-signature': signature }),
          },
          body,
        });
      for (const signature of ['v0=forged', '']) {
        const refused = await post(signature);
        await refused.body.dump();
        expect(refused.statusCode).toBe(401);
      }
      const stale = await request(`${h.sender.baseUrl}${target}`, {
        method: 'POST',
        headers: { 'content-type': form, ...signSlackBody(h.sender.signingSecret, body, 1) },
        body,
      });
      await stale.body.dump();
      expect(stale.statusCode).toBe(401);
      const taken = await post();
      await taken.body.dump();
      expect(taken.statusCode).toBe(200);
      await h.slack.waitFor(`response_url:target${i}`);
    }
  });
});
