// The stand-in for Slack refuses what Slack refuses, with Slack's error names: over real HTTP to the
// workbench's Web API and response_url, with the trigger and posting-rate clocks under the test's
// control (no sleeping, no timing).
import { request } from 'undici';
import { test as base, describe, expect } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { createStore } from '../../src/store/index.js';
import { PostingRate, TRIGGER_LIFETIME_MS, Triggers } from '../../src/workbench/slack-rules.js';
import { WebApi } from '../../src/workbench/web-api.js';
import { Workspace } from '../../src/workbench/workspace.js';

/** The trigger and posting-rate clock: it stands still until a test moves it on. */
class StillClock {
  at = 1_800_000_000_000;
  readonly now = () => this.at;
  advance(ms: number): void {
    this.at += ms;
  }
}

/**
 * Each test's own workbench Web API (a bare HTTP server on 127.0.0.1, started in a moment): `clock`,
 * `store`, `workspace` on it, `triggers`, and `api` serving them, so no test meets another's posts,
 * modals or moved clock.
 */
const it = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('clock', async ({}) => new StillClock())
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('store', async ({}, { onCleanup }) => {
    const store = await createStore('memory://', { prefix: 'workbench-rules' });
    onCleanup(() => store.close());
    return store;
  })
  .extend('workspace', async ({ store }) => new Workspace(store))
  .extend('triggers', async ({ clock }) => new Triggers(clock.now))
  .extend('api', async ({ workspace, triggers, clock }, { onCleanup }) => {
    const api = new WebApi({
      workspace,
      triggers,
      logger: silentLogger,
      rate: new PostingRate(1, 10, clock.now),
      pageUrl: () => 'http://127.0.0.1:1',
    });
    await api.start();
    onCleanup(() => api.stop());
    return api;
  });

async function call(api: WebApi, method: string, args: Record<string, unknown>, token = api.token) {
  // As WebClient sends them: form fields, nested values as JSON text, the token as a bearer.
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(args))
    form.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  const response = await request(`${api.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${token}` },
    body: form.toString(),
  });
  return {
    status: response.statusCode,
    retryAfter: response.headers['retry-after'],
    body: (await response.body.json()) as {
      ok: boolean;
      error?: string;
      response_metadata?: { messages: string[] };
    } & Record<string, unknown>,
  };
}

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const modal = (blocks: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Withdraw cNGN' },
  submit: { type: 'plain_text', text: 'Ask' },
  blocks,
  ...extra,
});

describe('trigger_id', () => {
  it('opens a modal within 3 s of the click, once', async ({ clock, workspace, triggers, api }) => {
    const trigger = triggers.issue('U0ADA');
    clock.advance(TRIGGER_LIFETIME_MS);
    const opened = await call(api, 'views.open', { trigger_id: trigger, view: modal([section('hello')]) });
    expect(opened.body.ok).toBe(true);
    expect((await workspace.modals('U0ADA')).map((m) => m.id)).toEqual([
      (opened.body.view as { id: string }).id,
    ]);
    expect(
      (await call(api, 'views.open', { trigger_id: trigger, view: modal([section('again')]) })).body.error,
    ).toBe('invalid_trigger_id');
  });

  it('is refused as expired_trigger_id after 3 s', async ({ clock, workspace, triggers, api }) => {
    const trigger = triggers.issue('U0BOLA');
    clock.advance(TRIGGER_LIFETIME_MS + 1);
    const late = await call(api, 'views.open', { trigger_id: trigger, view: modal([section('too late')]) });
    expect(late.body).toMatchObject({ ok: false, error: 'expired_trigger_id' });
    expect(await workspace.modals('U0BOLA')).toEqual([]);
    expect(
      (await call(api, 'views.push', { trigger_id: 'made-up', view: modal([section('x')]) })).body.error,
    ).toBe('invalid_trigger_id');
  });
});

describe('posting rate', () => {
  it('takes a burst of 10 in a channel, then answers 429 with Retry-After; other channels are unaffected', async ({
    clock,
    workspace,
    api,
  }) => {
    for (let i = 0; i < 10; i += 1) {
      const posted = await call(api, 'chat.postMessage', { channel: 'C0ALERTS', text: `alert ${i}` });
      expect(posted.status, `post ${i}`).toBe(200);
    }
    const limited = await call(api, 'chat.postMessage', { channel: 'C0ALERTS', text: 'one too many' });
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBe('1');
    expect(limited.body).toEqual({ ok: false, error: 'ratelimited' });
    expect((await workspace.messages('C0ALERTS')).map((m) => m.text)).not.toContain('one too many');
    expect((await call(api, 'chat.postMessage', { channel: 'C0TREASURY', text: 'elsewhere' })).status).toBe(
      200,
    );
    clock.advance(1_000); // a second later, one more fits
    expect((await call(api, 'chat.postMessage', { channel: 'C0ALERTS', text: 'later' })).status).toBe(200);
    expect((await call(api, 'chat.postMessage', { channel: 'C0ALERTS', text: 'too soon' })).status).toBe(429);
  });
});

describe('Block Kit limits', () => {
  it('refuses a message of 51 blocks as invalid_blocks, saying where', async ({ api }) => {
    const blocks = Array.from({ length: 51 }, (_, i) => section(`line ${i}`));
    const answer = await call(api, 'chat.postMessage', { channel: 'C0TREASURY', text: 'many', blocks });
    expect(answer.body.error).toBe('invalid_blocks');
    expect(answer.body.response_metadata?.messages).toEqual([
      '[ERROR] no more than 50 items allowed [json-pointer:/blocks]',
    ]);
    const fifty = await call(api, 'chat.postMessage', {
      channel: 'C0TREASURY',
      text: 'fifty',
      blocks: blocks.slice(0, 50),
    });
    expect(fifty.body.ok).toBe(true);
  });

  it('refuses a section text over 3,000 characters, and a button over 75', async ({ api }) => {
    const long = await call(api, 'chat.postMessage', {
      channel: 'C0TREASURY',
      text: 'long',
      blocks: [section('x'.repeat(3001))],
    });
    expect(long.body.error).toBe('invalid_blocks');
    expect(long.body.response_metadata?.messages?.[0]).toMatch(/json-pointer:\/blocks\/0\/text\/text/);
    const button = {
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'y'.repeat(76) }, action_id: 'a' }],
    };
    expect(
      (await call(api, 'chat.postMessage', { channel: 'C0TREASURY', text: 'b', blocks: [button] })).body
        .error,
    ).toBe('invalid_blocks');
  });

  it('refuses a modal select of 101 options, and an input modal without submit, as invalid_arguments', async ({
    workspace,
    triggers,
    api,
  }) => {
    const options = Array.from({ length: 101 }, (_, i) => ({
      text: { type: 'plain_text', text: `o${i}` },
      value: `o${i}`,
    }));
    const select = {
      type: 'input',
      block_id: 'pick',
      label: { type: 'plain_text', text: 'Pick' },
      element: { type: 'static_select', action_id: 'pick', options },
    };
    const many = await call(api, 'views.open', {
      trigger_id: triggers.issue('U0CHIDI'),
      view: modal([select]),
    });
    expect(many.body.error).toBe('invalid_arguments');
    expect(many.body.response_metadata?.messages?.[0]).toMatch(/at most 100 options/);
    const noSubmit = await call(api, 'views.open', {
      trigger_id: triggers.issue('U0CHIDI'),
      view: modal([{ ...select, element: { ...select.element, options: options.slice(0, 3) } }], {
        submit: undefined,
      }),
    });
    expect(noSubmit.body.response_metadata?.messages).toEqual([
      "[ERROR] submit is required when an 'input' block is present [json-pointer:/view/submit]",
    ]);
    const title = await call(api, 'views.open', {
      trigger_id: triggers.issue('U0CHIDI'),
      view: modal([section('x')], {
        title: { type: 'plain_text', text: 'A title much longer than Slack allows' },
      }),
    });
    expect(title.body.error).toBe('invalid_arguments');
    expect(await workspace.modals('U0CHIDI')).toEqual([]);
  });

  it('refuses a message with neither text nor blocks as no_text', async ({ api }) => {
    expect((await call(api, 'chat.postMessage', { channel: 'C0TREASURY' })).body.error).toBe('no_text');
  });
});

describe('the rest of what the bot relies on', () => {
  it('refuses a wrong token, an unknown channel, an unknown user and an update of a missing message', async ({
    api,
  }) => {
    expect((await call(api, 'auth.test', {}, 'xoxb-other')).body.error).toBe('invalid_auth');
    expect((await call(api, 'auth.test', {})).body).toMatchObject({ ok: true, user_id: 'U0CNGNBOT' });
    expect((await call(api, 'chat.postMessage', { channel: 'X1', text: 'hi' })).body.error).toBe(
      'channel_not_found',
    );
    expect((await call(api, 'users.info', { user: 'U0EVE' })).body.error).toBe('user_not_found');
    expect((await call(api, 'users.info', { user: 'U0BOLA' })).body).toMatchObject({
      ok: true,
      user: { real_name: 'Bola', profile: { email: 'bola@example.com' } },
    });
    expect(
      (await call(api, 'chat.update', { channel: 'C0TREASURY', ts: '1.000001', text: 'x' })).body.error,
    ).toBe('message_not_found');
  });

  it('answers an unknown method, and a GET, with HTTP 200 and ok:false as Slack does (WebClient retries a 404)', async ({
    api,
  }) => {
    const unknown = await call(api, 'files.noSuchMethod', {});
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ ok: false, error: 'unknown_method' });
    const get = await request(`${api.apiUrl}auth.test`, {
      headers: { authorization: `Bearer ${api.token}` },
    });
    expect(get.statusCode).toBe(200);
    expect(await get.body.json()).toMatchObject({ ok: false });
  });

  it('posting to a user lands in their DM with the bot', async ({ workspace, api }) => {
    const posted = await call(api, 'chat.postMessage', {
      channel: 'U0DAYO',
      text: 'your request was approved',
    });
    expect(posted.body).toMatchObject({ ok: true, channel: 'DU0DAYO' });
    expect((await workspace.messages('DU0DAYO')).map((m) => m.text)).toEqual(['your request was approved']);
  });

  it('chat.update edits in place and keeps the blocks when none are given', async ({ workspace, api }) => {
    const posted = await call(api, 'chat.postMessage', {
      channel: 'C0APPROVALS',
      text: 'pending',
      blocks: [section('*Pending*')],
    });
    const ts = String(posted.body.ts);
    const updated = await call(api, 'chat.update', { channel: 'C0APPROVALS', ts, text: 'approved' });
    expect(updated.body.ok).toBe(true);
    const stored = await workspace.message('C0APPROVALS', ts);
    expect(stored).toMatchObject({ text: 'approved', edited: true });
    expect(JSON.stringify(stored?.blocks)).toContain('*Pending*');
  });
});

describe('who may call the Web API', () => {
  const post = (api: WebApi, headers: Record<string, string>, form: Record<string, string>) =>
    request(`${api.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });

  it('makes a fresh bot token at each start', async ({ workspace, triggers, api }) => {
    const other = new WebApi({ workspace, triggers, logger: silentLogger, pageUrl: () => '' });
    expect(api.token).toMatch(/^xoxb-workbench-[0-9a-f]{48}$/);
    expect(other.token).toMatch(/^xoxb-workbench-[0-9a-f]{48}$/);
    expect(other.token).not.toBe(api.token);
  });

  it('refuses a foreign Host, a missing token and a wrong one, and posts nothing', async ({
    workspace,
    api,
  }) => {
    const channel = 'C0ALERTS';
    const before = (await workspace.messages(channel)).length;
    const text = 'posted by some web page';
    const foreign = await post(
      api,
      { host: 'rebound.example:80', authorization: `Bearer ${api.token}` },
      { channel, text },
    );
    expect(foreign.statusCode).toBe(403);
    expect(await foreign.body.json()).toMatchObject({ ok: false });
    const none = await post(api, {}, { channel, text });
    expect(await none.body.json()).toEqual({ ok: false, error: 'not_authed' });
    for (const wrong of ['xoxb-workbench-local-not-a-slack-token', `${api.token}0`]) {
      const header = await post(api, { authorization: `Bearer ${wrong}` }, { channel, text });
      expect(await header.body.json()).toEqual({ ok: false, error: 'invalid_auth' });
      const field = await post(api, {}, { channel, text, token: wrong });
      expect(await field.body.json()).toEqual({ ok: false, error: 'invalid_auth' });
    }
    expect((await workspace.messages(channel)).length).toBe(before);
    // The right token as the form field, as Slack accepts it, posts.
    const right = await post(api, {}, { channel, text: 'the bot', token: api.token });
    expect(await right.body.json()).toMatchObject({ ok: true });
    const after = await workspace.messages(channel);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)?.text).toBe('the bot');
  });
});

describe('response_url', () => {
  const respond = async (api: WebApi, token: string, body: unknown) => {
    const response = await request(api.responseUrl(token), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: response.statusCode,
      body: (await response.body.json()) as { ok: boolean; error?: string },
    };
  };

  it('answers privately by default, in the channel when asked, and takes five posts', async ({
    workspace,
    api,
  }) => {
    const token = await workspace.newResponseUrl({ user: 'U0ADA', channel: 'C0TREASURY' });
    expect((await respond(api, token, { text: 'just for Ada' })).status).toBe(200);
    expect((await respond(api, token, { text: 'for everyone', response_type: 'in_channel' })).status).toBe(
      200,
    );
    const list = await workspace.messages('C0TREASURY');
    expect(list.find((m) => m.text === 'just for Ada')?.visibleTo).toBe('U0ADA');
    expect(list.find((m) => m.text === 'for everyone')?.visibleTo).toBeUndefined();
    for (let i = 0; i < 3; i += 1)
      expect((await respond(api, token, { text: `more ${i}` })).status).toBe(200);
    expect(await respond(api, token, { text: 'sixth' })).toEqual({
      status: 404,
      body: { ok: false, error: 'expired_url' },
    });
  });

  it('replace_original edits the clicked message and delete_original removes it', async ({
    workspace,
    api,
  }) => {
    const posted = await call(api, 'chat.postMessage', { channel: 'C0TREASURY', text: 'choose a bank' });
    const ts = String(posted.body.ts);
    const token = await workspace.newResponseUrl({ user: 'U0ADA', channel: 'C0TREASURY', messageTs: ts });
    await respond(api, token, { replace_original: true, text: 'bank chosen' });
    expect(await workspace.message('C0TREASURY', ts)).toMatchObject({ text: 'bank chosen', edited: true });
    await respond(api, token, { delete_original: true });
    expect(await workspace.message('C0TREASURY', ts)).toBeUndefined();
  });

  it('refuses blocks Slack would refuse', async ({ workspace, api }) => {
    const token = await workspace.newResponseUrl({ user: 'U0ADA', channel: 'C0TREASURY' });
    const answer = await respond(api, token, {
      text: 'x',
      blocks: Array.from({ length: 51 }, () => section('x')),
    });
    expect(answer).toEqual({
      status: 400,
      body: expect.objectContaining({ ok: false, error: 'invalid_blocks' }),
    });
  });
});

describe('the record', () => {
  it('keeps the newest messages of a channel, and no reply without its parent', async ({ store }) => {
    const small = new Workspace(store, 3);
    const parent = await small.post({ channel: 'C0TRIM', bot: true, text: 'parent' });
    await small.post({ channel: 'C0TRIM', user: 'U0ADA', text: 'reply', thread_ts: parent.ts });
    for (const text of ['one', 'two', 'three']) await small.post({ channel: 'C0TRIM', bot: true, text });
    expect((await small.messages('C0TRIM')).map((m) => m.text)).toEqual(['one', 'two', 'three']);
  });
});
