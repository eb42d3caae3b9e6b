// Every answer of the workbench — the page, its bundle, JSON, refusals, 404s, the event stream, and the
// Web API's files and errors on its own port — forbids framing and carries the page's script and style
// policy, so no page on another origin can show it in a frame.
import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { describe, expect } from 'vitest';
import { ADA, messagesIn, TREASURY, benchTest as test } from '../support/workbench-bench.js';

type Headers = Record<string, string | string[] | undefined>;

function expectNoFraming(headers: Headers, what: string): void {
  expect(headers['x-frame-options'], what).toBe('DENY');
  const policy = String(headers['content-security-policy'] ?? '');
  expect(policy, what).toContain("frame-ancestors 'none'");
  expect(policy, what).toContain("script-src 'self'");
  expect(policy, what).toContain("style-src 'self'");
  expect(policy, what).not.toContain('unsafe-inline');
}

async function answerTo(
  url: string,
  options: { method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers }> {
  const controller = new AbortController();
  const response = await request(url, { ...options, signal: controller.signal });
  // The event stream never ends by itself: its headers are all this needs.
  controller.abort();
  await response.body.dump().catch(() => undefined);
  return { status: response.statusCode, headers: response.headers };
}

describe('workbench answers cannot be framed', () => {
  test('on the page server: page, bundle, JSON, refusals, stream and 404s', async ({ bench }) => {
    const json = { 'content-type': 'application/json' };
    const cases: Array<[string, string, Parameters<typeof answerTo>[1], number]> = [
      ['the page', '/', {}, 200],
      ['the script', '/workbench/app.js', {}, 200],
      ['the stylesheet', '/workbench/app.css', {}, 200],
      ['the state (JSON)', `/workbench/api/state?user=${ADA}`, {}, 200],
      ['a refused state read', '/workbench/api/state?user=nobody', {}, 400],
      ['a refused action', '/workbench/api/command', { method: 'POST', body: '{}', headers: json }, 400],
      ['a form post', '/workbench/api/command', { method: 'POST', body: 'x', headers: {} }, 415],
      ['a foreign Host', '/', { headers: { host: 'attacker.example' } }, 403],
      ['the event stream', '/workbench/api/events', {}, 200],
      ['a 404 under /workbench', '/workbench/nothing-here', {}, 404],
      ['a 404 elsewhere', '/nothing-here', {}, 404],
      ['a probe (served on the admin port only)', '/healthz', {}, 404],
    ];
    for (const [what, path, options, status] of cases) {
      const answer = await answerTo(`${bench.url}${path}`, options);
      expect(answer.status, what).toBe(status);
      expectNoFraming(answer.headers, what);
    }
  });

  test('on the Web API server: a shared file, a missing one and an API error', async ({ bench }) => {
    const workbench = bench.started.workbench;
    if (!workbench) throw new Error('started as the workbench');
    const client = new WebClient(workbench.botToken, { slackApiUrl: workbench.apiUrl });
    await client.filesUploadV2({ channel_id: TREASURY, content: 'a,b\n1,2\n', filename: 'figures.csv' });
    const file = messagesIn(await bench.state(ADA), TREASURY).find((m) => m.files?.length)?.files?.[0];
    if (!file) throw new Error('the file was shared');
    const api = workbench.apiUrl.replace(/\/api\/$/, '');
    const cases: Array<[string, string, Parameters<typeof answerTo>[1], number]> = [
      ['a shared file', file.url, {}, 200],
      ['a missing file', `${api}/files/FNOSUCHFILE/x.csv`, {}, 404],
      ['an unknown path', `${api}/nothing-here`, { method: 'POST', body: '' }, 404],
      ['an unauthenticated call', `${api}/api/auth.test`, { method: 'POST', body: '' }, 200],
    ];
    for (const [what, url, options, status] of cases) {
      const answer = await answerTo(url, options);
      expect(answer.status, what).toBe(status);
      expectNoFraming(answer.headers, what);
    }
  });
});
