// The stand-in for Slack's Web API and response_url, on its own loopback port. The bot's WebClient
// (Bolt's, the presenter's and the alerts client) calls it exactly as it calls slack.com/api/; every
// call is checked as Slack checks it (token, Block Kit limits, trigger_id, posting rate) and what it
// posts lands in the Book, which the page reads.
//
// Why its own port: Bolt builds its WebClient with a fixed slackApiUrl when the App is constructed,
// before the bot's HTTP server listens, and with PORT=0 that server's port is known only after
// listen. A second loopback server on a port of its own is known first, needs no fix-up of Bolt's
// internals, and keeps the Web API off the port the page is served on.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { View } from '@slack/types';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { type Book, newId } from './book.js';
import {
  BOT,
  CHANNELS,
  dmOf,
  dmOwner,
  resolveChannel,
  TEAM,
  USER_GROUPS,
  USERS,
  userById,
} from './people.js';
import type { WorkbenchMessage, WorkbenchModal } from './protocol.js';
import { checkMessage, checkView, PostingRate, SlackRefusal, type Triggers } from './slack-rules.js';
import { viewOutput, withIds } from './views.js';

export const WORKBENCH_BOT_TOKEN = 'xoxb-workbench-local-not-a-slack-token';
const MAX_BODY = 1_000_000;
const MAX_STACK = 3;

export interface WebApiOptions {
  book: Book;
  triggers: Triggers;
  logger: Logger;
  rate?: PostingRate;
  /** The page's URL (for permalinks); known once the bot listens. */
  pageUrl: () => string;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

const ok = (body: Record<string, unknown> = {}): Answer => ({ status: 200, body: { ok: true, ...body } });
const refused = (error: string, messages: string[] = []): Answer => ({
  status: 200,
  body: { ok: false, error, ...(messages.length ? { response_metadata: { messages } } : {}) },
});

const str = z.string().min(1);
const messageArgs = z.looseObject({
  text: z.string().optional(),
  blocks: z.unknown().optional(),
  thread_ts: z.string().optional(),
  attachments: z.unknown().optional(),
});
/** The message arguments of a chat.* call, or Slack's invalid_arguments naming the field. */
const message = {
  parse(args: Record<string, unknown>) {
    const parsed = messageArgs.safeParse(args);
    if (parsed.success) return parsed.data;
    throw new SlackRefusal(
      'invalid_arguments',
      parsed.error.issues.map((i) => `[ERROR] ${i.message} [json-pointer:/${i.path.join('/')}]`),
    );
  },
};

export class WebApi {
  private server: Server | undefined;
  url = '';
  private readonly rate: PostingRate;

  constructor(private readonly options: WebApiOptions) {
    this.rate = options.rate ?? new PostingRate();
  }

  /** WebClient's slackApiUrl (with the trailing slash it expects). */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  responseUrl(token: string): string {
    return `${this.url}/response/${token}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let answer: Answer;
    try {
      const raw = await readBody(req);
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (req.method !== 'POST') answer = { status: 405, body: { ok: false, error: 'method_not_allowed' } };
      else if (path.startsWith('/api/')) answer = await this.api(path.slice(5), req, raw);
      else if (path.startsWith('/response/')) answer = await this.respond(path.slice(10), raw);
      else answer = { status: 404, body: { ok: false, error: 'not_found' } };
    } catch (error) {
      answer =
        error instanceof SlackRefusal
          ? refused(error.error, error.messages)
          : { status: 500, body: { ok: false, error: 'internal_error' } };
      if (!(error instanceof SlackRefusal)) {
        this.options.logger.error('workbench Web API failed', { error: String(error) });
      }
    }
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  }

  private async api(method: string, req: IncomingMessage, raw: string): Promise<Answer> {
    const args = parseArgs(raw, req.headers['content-type']);
    const auth = req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? (args.token as string | undefined);
    if (!auth) return refused('not_authed');
    if (auth !== WORKBENCH_BOT_TOKEN) return refused('invalid_auth');
    const handler = this.methods[method];
    if (!handler) return { status: 404, body: { ok: false, error: 'unknown_method' } };
    return handler(args);
  }

  private readonly methods: Record<string, (args: Record<string, unknown>) => Promise<Answer> | Answer> = {
    'auth.test': () =>
      ok({
        url: `${this.options.pageUrl()}/`,
        team: TEAM.name,
        user: BOT.name,
        team_id: TEAM.id,
        user_id: BOT.id,
        bot_id: BOT.botId,
        is_enterprise_install: false,
      }),
    'chat.postMessage': (args) => this.postMessage(args),
    'chat.postEphemeral': (args) => this.postEphemeral(args),
    'chat.update': (args) => this.update(args),
    'chat.delete': (args) => this.deleteMessage(args),
    'chat.getPermalink': async (args) => {
      const channel = resolveChannel(String(args.channel ?? ''));
      if (!channel) return refused('channel_not_found');
      const ts = String(args.message_ts ?? '');
      if (!(await this.options.book.message(channel.id, ts))) return refused('message_not_found');
      return ok({ channel: channel.id, permalink: `${this.options.pageUrl()}/#${channel.id}/${ts}` });
    },
    'views.open': (args) => this.viewsOpen(args),
    'views.push': (args) => this.viewsPush(args),
    'views.update': (args) => this.viewsUpdate(args),
    'views.publish': (args) => this.viewsPublish(args),
    'users.info': (args) => {
      const id = String(args.user ?? '');
      if (id === BOT.id)
        return ok({
          user: {
            id,
            team_id: TEAM.id,
            name: BOT.name,
            real_name: BOT.name,
            is_bot: true,
            deleted: false,
            profile: { real_name: BOT.name, display_name: BOT.name, bot_id: BOT.botId },
          },
        });
      const user = userById(id);
      if (!user) return refused('user_not_found');
      return ok({ user: userObject(user.id) });
    },
    'users.list': () =>
      ok({ members: USERS.map((u) => userObject(u.id)), response_metadata: { next_cursor: '' } }),
    'usergroups.users.list': (args) => {
      const users = USER_GROUPS[String(args.usergroup ?? '')];
      return users ? ok({ users: [...users] }) : refused('no_such_subteam');
    },
    'conversations.open': (args) => {
      const users = String(args.users ?? args.user ?? '')
        .split(',')
        .filter(Boolean);
      const [user] = users;
      if (users.length !== 1 || !user || !userById(user)) return refused('user_not_found');
      return ok({ channel: { id: dmOf(user) } });
    },
    'conversations.info': (args) => {
      const id = String(args.channel ?? '');
      const channel = resolveChannel(id);
      if (!channel) return refused('channel_not_found');
      return ok({ channel: conversationObject(channel.id, channel.name) });
    },
    'conversations.list': () =>
      ok({
        channels: Object.values(CHANNELS).map((c) => conversationObject(c.id, c.name)),
        response_metadata: { next_cursor: '' },
      }),
    'conversations.members': (args) => {
      const channel = resolveChannel(String(args.channel ?? ''));
      if (!channel) return refused('channel_not_found');
      const owner = dmOwner(channel.id);
      return ok({
        members: owner ? [owner, BOT.id] : [...USERS.map((u) => u.id), BOT.id],
        response_metadata: { next_cursor: '' },
      });
    },
    'conversations.history': async (args) => {
      const channel = resolveChannel(String(args.channel ?? ''));
      if (!channel) return refused('channel_not_found');
      const limit = Math.min(Number(args.limit ?? 100) || 100, 1000);
      const all = (await this.options.book.messages(channel.id)).filter((m) => !m.visibleTo && !m.thread_ts);
      return ok({ messages: all.reverse().slice(0, limit).map(slackMessage), has_more: all.length > limit });
    },
    'conversations.replies': async (args) => {
      const channel = resolveChannel(String(args.channel ?? ''));
      if (!channel) return refused('channel_not_found');
      const ts = String(args.ts ?? '');
      const all = (await this.options.book.messages(channel.id)).filter(
        (m) => !m.visibleTo && (m.ts === ts || m.thread_ts === ts),
      );
      if (!all.length) return refused('thread_not_found');
      return ok({ messages: all.map(slackMessage), has_more: false });
    },
  };

  private async postMessage(args: Record<string, unknown>): Promise<Answer> {
    const channel = resolveChannel(String(args.channel ?? ''));
    if (!channel) return refused('channel_not_found');
    const body = message.parse(args);
    checkMessage(body);
    const retryAfter = this.rate.take(channel.id);
    if (retryAfter !== undefined) {
      return {
        status: 429,
        headers: { 'retry-after': String(retryAfter) },
        body: { ok: false, error: 'ratelimited' },
      };
    }
    const posted = await this.options.book.post({
      channel: channel.id,
      bot: true,
      text: body.text ?? '',
      ...(Array.isArray(body.blocks) && body.blocks.length ? { blocks: withIds(body.blocks) } : {}),
      ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
    });
    return ok({ channel: channel.id, ts: posted.ts, message: slackMessage(posted) });
  }

  private async postEphemeral(args: Record<string, unknown>): Promise<Answer> {
    const channel = resolveChannel(String(args.channel ?? ''));
    if (!channel) return refused('channel_not_found');
    const user = String(args.user ?? '');
    if (!userById(user)) return refused('user_not_found');
    const owner = dmOwner(channel.id);
    if (owner && owner !== user) return refused('user_not_in_channel');
    const body = message.parse(args);
    checkMessage(body);
    const posted = await this.options.book.post({
      channel: channel.id,
      bot: true,
      visibleTo: user,
      text: body.text ?? '',
      ...(Array.isArray(body.blocks) && body.blocks.length ? { blocks: withIds(body.blocks) } : {}),
      ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
    });
    return ok({ message_ts: posted.ts });
  }

  private async update(args: Record<string, unknown>): Promise<Answer> {
    const channel = resolveChannel(String(args.channel ?? ''));
    if (!channel) return refused('channel_not_found');
    const ts = str.safeParse(args.ts);
    if (!ts.success) return refused('invalid_arguments', ['[ERROR] missing required field: ts']);
    const body = message.parse(args);
    const current = await this.options.book.message(channel.id, ts.data);
    if (!current || current.visibleTo) return refused('message_not_found');
    if (!current.bot) return refused('cant_update_message');
    // Omitted blocks are kept, as Slack does; an empty array removes them.
    const blocks = body.blocks === undefined ? current.blocks : (body.blocks as unknown[]);
    checkMessage({ text: body.text ?? current.text, blocks });
    const updated = await this.options.book.edit(channel.id, ts.data, (m) => {
      const next: WorkbenchMessage = { ...m, text: body.text ?? m.text, edited: true };
      if (Array.isArray(blocks) && blocks.length)
        next.blocks = withIds(blocks as NonNullable<WorkbenchMessage['blocks']>);
      else delete next.blocks;
      return next;
    });
    if (!updated) return refused('message_not_found');
    return ok({ channel: channel.id, ts: ts.data, text: updated.text, message: slackMessage(updated) });
  }

  private async deleteMessage(args: Record<string, unknown>): Promise<Answer> {
    const channel = resolveChannel(String(args.channel ?? ''));
    if (!channel) return refused('channel_not_found');
    const ts = String(args.ts ?? '');
    const current = await this.options.book.message(channel.id, ts);
    if (!current || current.visibleTo) return refused('message_not_found');
    if (!current.bot) return refused('cant_delete_message');
    await this.options.book.edit(channel.id, ts, () => 'delete');
    return ok({ channel: channel.id, ts });
  }

  // ---- views ----

  private parseView(args: Record<string, unknown>, kind: 'modal' | 'home'): View {
    const view = args.view;
    if (view === undefined)
      throw new SlackRefusal('invalid_arguments', ['[ERROR] missing required field: view']);
    checkView(view, kind);
    const v = structuredClone(view) as View;
    v.blocks = withIds(v.blocks);
    return v;
  }

  private async viewsOpen(args: Record<string, unknown>): Promise<Answer> {
    const user = this.options.triggers.use(args.trigger_id);
    const view = this.parseView(args, 'modal');
    const modal: WorkbenchModal = { id: newId('V'), hash: newHash(), view };
    // A new root: whatever was open is replaced, as views.open does.
    await this.options.book.changeModals(user, () => ({ stack: [modal], answer: undefined }));
    return ok({ view: viewOutput(modal) });
  }

  private async viewsPush(args: Record<string, unknown>): Promise<Answer> {
    const user = this.options.triggers.use(args.trigger_id);
    const view = this.parseView(args, 'modal');
    const modal: WorkbenchModal = { id: newId('V'), hash: newHash(), view };
    const problem = await this.options.book.changeModals(user, (stack) => {
      if (!stack.length) return { stack, answer: 'not_found' };
      if (stack.length >= MAX_STACK) return { stack, answer: 'push_limit_reached' };
      return { stack: [...stack, modal], answer: undefined };
    });
    if (problem) return refused(problem);
    return ok({ view: viewOutput(modal) });
  }

  private async viewsUpdate(args: Record<string, unknown>): Promise<Answer> {
    const viewId = typeof args.view_id === 'string' ? args.view_id : undefined;
    const externalId = typeof args.external_id === 'string' ? args.external_id : undefined;
    if (!viewId && !externalId)
      return refused('invalid_arguments', ['[ERROR] view_id or external_id is required']);
    const matches = (m: { id: string; view: View }) =>
      viewId ? m.id === viewId : (m.view as { external_id?: string }).external_id === externalId;
    const hash = typeof args.hash === 'string' ? args.hash : undefined;
    for (const user of USERS) {
      const home = await this.options.book.home(user.id);
      if (home && matches({ id: home.id, view: home })) {
        if (hash && hash !== home.hash) return refused('hash_conflict');
        const view = this.parseView(args, 'home');
        const next = { ...view, id: home.id, hash: newHash() };
        await this.options.book.setHome(user.id, next);
        return ok({ view: viewOutput({ id: next.id, hash: next.hash, view }) });
      }
      const stack = await this.options.book.modals(user.id);
      if (!stack.some(matches)) continue;
      const view = this.parseView(args, 'modal');
      const answer = await this.options.book.changeModals(user.id, (current) => {
        const index = current.findIndex(matches);
        const found = current[index];
        if (!found) return { stack: current, answer: refused('not_found') };
        if (hash && hash !== found.hash) return { stack: current, answer: refused('hash_conflict') };
        const next: WorkbenchModal = { id: found.id, hash: newHash(), view };
        const updated = [...current];
        updated[index] = next;
        return {
          stack: updated,
          answer: ok({ view: viewOutput(next, { root: current[0]?.id, previous: current[index - 1]?.id }) }),
        };
      });
      return answer;
    }
    return refused('not_found');
  }

  private async viewsPublish(args: Record<string, unknown>): Promise<Answer> {
    const user = String(args.user_id ?? '');
    if (!userById(user)) return refused('user_not_found');
    const view = this.parseView(args, 'home');
    const current = await this.options.book.home(user);
    if (typeof args.hash === 'string' && current && args.hash !== current.hash)
      return refused('hash_conflict');
    const next = { ...view, id: current?.id ?? newId('V'), hash: newHash() };
    await this.options.book.setHome(user, next);
    return ok({ view: viewOutput({ id: next.id, hash: next.hash, view }) });
  }

  // ---- response_url ----

  private async respond(token: string, raw: string): Promise<Answer> {
    const context = await this.options.book.useResponseUrl(token);
    if (!context) return { status: 404, body: { ok: false, error: 'expired_url' } };
    const parsed = responseBody.safeParse(safeJson(raw));
    if (!parsed.success) return { status: 400, body: { ok: false, error: 'invalid_payload' } };
    const body = parsed.data;
    const book = this.options.book;
    if (body.delete_original) {
      if (context.messageTs) await book.edit(context.channel, context.messageTs, () => 'delete');
      return { status: 200, body: { ok: true } };
    }
    try {
      checkMessage(body);
    } catch (error) {
      if (error instanceof SlackRefusal)
        return {
          status: 400,
          body: { ok: false, error: error.error, response_metadata: { messages: error.messages } },
        };
      throw error;
    }
    const blocks =
      Array.isArray(body.blocks) && body.blocks.length
        ? withIds(body.blocks as NonNullable<WorkbenchMessage['blocks']>)
        : undefined;
    if (body.replace_original && context.messageTs) {
      const replaced = await book.edit(context.channel, context.messageTs, (m) => {
        const next: WorkbenchMessage = { ...m, text: body.text ?? '', edited: true };
        if (blocks) next.blocks = blocks;
        else delete next.blocks;
        return next;
      });
      if (replaced) return { status: 200, body: { ok: true } };
    }
    await book.post({
      channel: context.channel,
      bot: true,
      text: body.text ?? '',
      ...(blocks ? { blocks } : {}),
      ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}),
      ...(body.response_type === 'in_channel' ? {} : { visibleTo: context.user }),
    });
    return { status: 200, body: { ok: true } };
  }
}

const responseBody = z.looseObject({
  text: z.string().optional(),
  blocks: z.unknown().optional(),
  response_type: z.enum(['ephemeral', 'in_channel']).optional(),
  replace_original: z
    .union([z.boolean(), z.literal('true'), z.literal('false')])
    .optional()
    .transform((v) => v === true || v === 'true'),
  delete_original: z
    .union([z.boolean(), z.literal('true'), z.literal('false')])
    .optional()
    .transform((v) => v === true || v === 'true'),
  thread_ts: z.string().optional(),
});

const newHash = () => `${Math.floor(Date.now() / 1000)}.${newId('', 4).toLowerCase()}`;

function userObject(id: string) {
  const user = userById(id);
  const name = user?.name ?? id;
  return {
    id,
    team_id: TEAM.id,
    name: name.toLowerCase(),
    real_name: name,
    deleted: false,
    is_bot: false,
    tz: 'Africa/Lagos',
    profile: { real_name: name, display_name: name, title: user?.role ?? '' },
  };
}

function conversationObject(id: string, name: string) {
  const dm = id.startsWith('D');
  return {
    id,
    ...(dm
      ? { user: dmOwner(id), is_im: true }
      : { name, is_channel: true, is_im: false, is_private: false }),
    is_member: true,
    is_archived: false,
  };
}

/** A stored message in Slack's `message` shape. */
function slackMessage(m: WorkbenchMessage) {
  return {
    type: 'message',
    ts: m.ts,
    text: m.text,
    ...(m.bot ? { bot_id: BOT.botId, user: BOT.id, app_id: undefined } : { user: m.user }),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.reply_count ? { reply_count: m.reply_count, thread_ts: m.ts } : {}),
    ...(m.edited ? { edited: { user: BOT.id, ts: m.ts } } : {}),
    team: TEAM.id,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new SlackRefusal('request_too_large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(raw: string): unknown {
  try {
    return raw ? JSON.parse(raw) : {};
  } catch {
    return undefined;
  }
}

/** WebClient form-encodes arguments, with nested values (blocks, view) as JSON text; JSON is accepted too. */
export function parseArgs(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes('application/json')) {
    const parsed = safeJson(raw);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    out[key] = /^[[{]/.test(value) ? (safeJson(value) ?? value) : value;
  }
  return out;
}
