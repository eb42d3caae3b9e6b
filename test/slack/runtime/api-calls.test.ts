// Slack's answers as the metrics see them: every Web API call through the observed fetch is reported by
// method, with Slack's error code, a 429, an HTTP failure or no answer at all, and the caller gets
// exactly what it would have got without it.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogLevel, WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { observedFetch, type SlackApiCall, webApiMethod } from '../../../src/slack/runtime/api-calls.js';
import { FakeSlack } from '../../support/fake-slack.js';
import { test as base } from '../../support/fixtures.js';

/** `slack`, a fake Slack; `seen`, the calls the observer reported; `client`, a Web API client observed. */
const test = base
  .extend('slack', async ({ defer }) => {
    const slack = await FakeSlack.start();
    defer(() => slack.stop());
    return slack;
  })
  .extend('seen', async () => [] as SlackApiCall[])
  .extend(
    'client',
    async ({ slack, seen }) =>
      new WebClient('xoxb-test', {
        slackApiUrl: slack.apiUrl,
        fetch: observedFetch((call) => seen.push(call)),
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      }),
  );

describe('observed Web API calls', () => {
  test('reports an answered call by its method, and the caller gets the answer', async ({ seen, client }) => {
    const answer = await client.chat.postMessage({ channel: 'C1', text: 'hello' });
    expect(answer.ok).toBe(true);
    expect(seen).toEqual([{ method: 'chat.postMessage' }]);
  });

  test("reports Slack's error code, and the caller still gets Slack's error", async ({
    slack,
    seen,
    client,
  }) => {
    slack.on('chat.postMessage', () => ({ body: { ok: false, error: 'channel_not_found' } }));
    await expect(client.chat.postMessage({ channel: 'C404', text: 'x' })).rejects.toThrow(
      /channel_not_found/,
    );
    expect(seen).toEqual([{ method: 'chat.postMessage', error: 'channel_not_found' }]);
  });

  test('reports a 429 as rate-limited, apart from errors', async ({ slack, seen, client }) => {
    slack.on('views.publish', () => ({ status: 429, headers: { 'retry-after': '30' } }));
    await expect(
      client.views.publish({ user_id: 'U1', view: { type: 'home', blocks: [] } }),
    ).rejects.toThrow();
    expect(seen).toEqual([{ method: 'views.publish', rateLimited: true }]);
  });

  test('reports an HTTP failure by its status', async ({ slack, seen, client }) => {
    slack.on('chat.update', () => ({ status: 503, body: { ok: false } }));
    await expect(client.chat.update({ channel: 'C1', ts: '1.0', text: 'x' })).rejects.toThrow();
    expect(seen).toEqual([{ method: 'chat.update', error: 'http_503' }]);
  });

  test('reports a call that got no answer', async ({ seen }) => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const nowhere = new WebClient('xoxb-test', {
      slackApiUrl: `http://127.0.0.1:${port}/api/`,
      fetch: observedFetch((call) => seen.push(call)),
      retryConfig: { retries: 0 },
      logLevel: LogLevel.ERROR,
    });
    await expect(nowhere.auth.test()).rejects.toThrow();
    expect(seen).toEqual([{ method: 'auth.test', error: 'request_failed' }]);
  });

  test('keeps error codes that are not Slack-shaped out of the labels', async ({ slack, seen, client }) => {
    slack.on('chat.postMessage', () => ({ body: { ok: false, error: 'Something "odd" U123 said' } }));
    await expect(client.chat.postMessage({ channel: 'C1', text: 'x' })).rejects.toThrow();
    expect(seen).toEqual([{ method: 'chat.postMessage', error: 'other' }]);
  });

  test('an observer that throws changes no answer', async ({ slack }) => {
    const careless = new WebClient('xoxb-test', {
      slackApiUrl: slack.apiUrl,
      fetch: observedFetch(() => {
        throw new Error('metrics broke');
      }),
    });
    expect((await careless.chat.postMessage({ channel: 'C1', text: 'x' })).ok).toBe(true);
  });
});

describe('which calls are Web API methods', () => {
  it('names the method of a Web API URL, and none for a response_url or an upload URL', () => {
    expect(webApiMethod('https://slack.com/api/chat.postMessage')).toBe('chat.postMessage');
    expect(webApiMethod('http://127.0.0.1:3000/api/files.getUploadURLExternal')).toBe(
      'files.getUploadURLExternal',
    );
    expect(webApiMethod('https://hooks.slack.com/commands/T1/2/abc')).toBeUndefined();
    expect(webApiMethod('https://files.slack.com/upload/v1/ABC123')).toBeUndefined();
  });
});
