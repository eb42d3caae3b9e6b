// The stand-in for Slack's Web API and response_url, on its own loopback port. The bot's WebClient
// (Bolt's, the presenter's and the alerts client) calls it exactly as it calls slack.com/api/; every
// call is checked as Slack checks it (token, Block Kit limits, trigger_id, posting rate) and what it
// posts lands in the Workspace, which the page reads.
//
// Why its own port: Bolt builds its WebClient with a fixed slackApiUrl when the App is constructed,
// before the bot's HTTP server listens, and with PORT=0 that server's port is known only after
// listen. A second loopback server on a port of its own is known first, needs no fix-up of Bolt's
// internals, and keeps the Web API off the port the page is served on.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Logger } from '../log.js';
import { BOT_SCOPES } from '../slack/runtime/scopes.js';
import { WORKBENCH_HEADERS } from './headers.js';
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
import { filePreviewPath, type WorkbenchFile, type WorkbenchMessage } from './protocol.js';
import { answerResponseUrl } from './response-url.js';
import { LOOPBACK_HOST } from './routes.js';
import { checkMessage, PostingRate, SlackRefusal, type Triggers } from './slack-rules.js';
import {
  type Answer,
  conversationObject,
  ok,
  parseArgs,
  readBody,
  refused,
  slackMessage,
  userObject,
} from './slack-shapes.js';
import { withIds } from './views.js';
import { ViewsApi } from './web-api-views.js';
import { newId, type Workspace } from './workspace.js';

/** A bot token for one start of the workbench: only the bot it was given to can call the Web API. */
export const newWorkbenchBotToken = () => `xoxb-workbench-${randomBytes(24).toString('hex')}`;

export interface WebApiOptions {
  workspace: Workspace;
  triggers: Triggers;
  logger: Logger;
  rate?: PostingRate;
  /** The page's URL (for permalinks); known once the bot listens. */
  pageUrl: () => string;
  /** The bot token every call must carry; fresh (newWorkbenchBotToken) unless given. */
  token?: string;
}

const str = z.string().min(1);
/** Uploads are bigger than API calls; an audit export of a busy year stays well under this. */
const MAX_UPLOAD = 50_000_000;
const completeFiles = z.array(z.object({ id: z.string(), title: z.string().optional() })).min(1);
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

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export class WebApi {
  private server: Server | undefined;
  url = '';
  private readonly rate: PostingRate;
  private readonly views: ViewsApi;
  /** The bot token this start accepts (Authorization: Bearer, or the `token` field). */
  readonly token: string;
  /** Uploads asked for and not yet completed: file id → name, announced length, bytes once posted. */
  private readonly uploads = new Map<
    string,
    { filename: string; length: number; alt?: string; content?: Buffer }
  >();

  constructor(private readonly options: WebApiOptions) {
    this.rate = options.rate ?? new PostingRate();
    this.token = options.token ?? newWorkbenchBotToken();
    this.views = new ViewsApi(options.workspace, options.triggers);
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
    // Files are opened from the page, so this origin follows the page's rules too.
    for (const [name, value] of Object.entries(WORKBENCH_HEADERS)) res.setHeader(name, value);
    let answer: Answer;
    try {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      // A web page elsewhere that rebinds its DNS name to 127.0.0.1 still sends its own name.
      if (!LOOPBACK_HOST.test(req.headers.host ?? '')) {
        answer = {
          status: 403,
          body: { ok: false, error: 'The workbench answers only on 127.0.0.1 or localhost' },
        };
      } else if (path.startsWith('/files/')) return await this.download(path.slice(7), req, res);
      else answer = await this.route(path, req);
    } catch (error) {
      answer =
        error instanceof SlackRefusal
          ? refused(error.error, error.messages)
          : { status: 500, body: { ok: false, error: 'internal_error' } };
      if (!(error instanceof SlackRefusal)) {
        this.options.logger.error('workbench Web API failed', { error });
      }
    }
    if (typeof answer.body === 'string') {
      res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8', ...answer.headers });
      res.end(answer.body);
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...answer.headers });
    res.end(JSON.stringify(answer.body));
  }

  /** A POST with a body: a Web API method, an upload, or an answer to a response_url. */
  private async route(path: string, req: IncomingMessage): Promise<Answer> {
    const raw = await readBody(req, path.startsWith('/upload/') ? MAX_UPLOAD : undefined);
    if (req.method !== 'POST') return refused('method_not_allowed');
    if (path.startsWith('/api/')) return this.api(path.slice(5), req, raw.toString('utf8'));
    if (path.startsWith('/upload/')) return this.receiveUpload(path.slice(8), req, raw);
    if (path.startsWith('/response/')) {
      return answerResponseUrl(this.options.workspace, path.slice(10), raw.toString('utf8'));
    }
    return { status: 404, body: { ok: false, error: 'not_found' } };
  }

  private async api(method: string, req: IncomingMessage, raw: string): Promise<Answer> {
    const args = parseArgs(raw, req.headers['content-type']);
    const auth = req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? (args.token as string | undefined);
    if (!auth) return refused('not_authed');
    if (!sameSecret(auth, this.token)) return refused('invalid_auth');
    // The method is the request path's text: only the table's own entries, never Object's members.
    const handler = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
    // Slack answers an unknown method with HTTP 200 (WebClient retries a 404 for half an hour).
    if (!handler) return refused('unknown_method');
    return handler(args);
  }

  /** The upload URL's POST: WebClient sends the bytes as multipart form data (field `body`), or raw. */
  private async receiveUpload(id: string, req: IncomingMessage, raw: Buffer): Promise<Answer> {
    const upload = this.uploads.get(id);
    if (!upload) return { status: 404, body: 'unknown upload' };
    const contentType = String(req.headers['content-type'] ?? '');
    let content: Buffer | undefined = raw;
    if (/^multipart\/form-data/i.test(contentType)) {
      const form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } })
        .formData()
        .catch(() => undefined);
      const part = form?.get('body') ?? form?.get('file');
      content =
        part === null || part === undefined
          ? undefined
          : typeof part === 'string'
            ? Buffer.from(part, 'utf8')
            : Buffer.from(await part.arrayBuffer());
    }
    if (!content) return { status: 400, body: 'no file in the upload' };
    upload.content = content;
    return { status: 200, body: `OK - ${content.length}` };
  }

  /** GET /files/<id>/<name>: a shared file's bytes, as an attachment. */
  private async download(rest: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const file =
      req.method === 'GET' ? await this.options.workspace.file(rest.split('/')[0] ?? '') : undefined;
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('No such file');
      return;
    }
    const bytes = Buffer.from(file.base64, 'base64');
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(bytes.length),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      'x-content-type-options': 'nosniff',
    });
    res.end(bytes);
  }

  /** files.getUploadURLExternal: a place to POST one file's bytes to. */
  private getUploadUrl(args: Record<string, unknown>): Answer {
    const filename = str.safeParse(args.filename);
    const length = z.coerce.number().int().positive().safeParse(args.length);
    if (!filename.success) return refused('invalid_arguments', ['[ERROR] missing required field: filename']);
    if (!length.success) return refused('invalid_arguments', ['[ERROR] missing required field: length']);
    const id = newId('F');
    // The SDK sends alt_text; Slack's method reference names it alt_txt: either is taken.
    const alt = str.safeParse(args.alt_text ?? args.alt_txt);
    this.uploads.set(id, {
      filename: filename.data,
      length: length.data,
      ...(alt.success ? { alt: alt.data } : {}),
    });
    return ok({ upload_url: `${this.url}/upload/${id}`, file_id: id });
  }

  /** The shared files as one message in the channel, under the upload's comment. */
  private async postFiles(
    channel: string,
    args: Record<string, unknown>,
    shared: WorkbenchFile[],
  ): Promise<void> {
    const comment = typeof args.initial_comment === 'string' ? args.initial_comment : '';
    await this.options.workspace.post({
      channel,
      bot: true,
      text: comment,
      files: shared,
      ...(typeof args.thread_ts === 'string' && args.thread_ts ? { thread_ts: args.thread_ts } : {}),
    });
  }

  /** An upload finished in full, as the file a message carries; else Slack's error for it. */
  private uploadedFile(
    id: string,
    title: string | undefined,
  ): WorkbenchFile | 'file_upload_not_found' | 'file_upload_size_mismatch' {
    const upload = this.uploads.get(id);
    if (!upload?.content) return 'file_upload_not_found';
    if (upload.content.length !== upload.length) return 'file_upload_size_mismatch';
    return {
      id,
      name: upload.filename,
      title: title ?? upload.filename,
      size: upload.content.length,
      url: `${this.url}/files/${id}/${encodeURIComponent(upload.filename)}`,
      ...(upload.alt ? { alt: upload.alt } : {}),
      ...(/\.png$/i.test(upload.filename) ? { preview: filePreviewPath(id) } : {}),
    };
  }

  /** files.completeUploadExternal: the uploaded files, shared into the channel as one message. */
  private async completeUpload(args: Record<string, unknown>): Promise<Answer> {
    const files = completeFiles.safeParse(args.files);
    if (!files.success) return refused('invalid_arguments', ['[ERROR] files: a JSON array of {id, title}']);
    const target = String(args.channel_id ?? args.channels ?? '').split(',')[0] ?? '';
    const channel = target ? resolveChannel(target) : undefined;
    if (target && !channel) return refused('channel_not_found');
    const shared: WorkbenchFile[] = [];
    for (const { id, title } of files.data) {
      const file = this.uploadedFile(id, title);
      if (typeof file === 'string') return refused(file);
      shared.push(file);
    }
    for (const file of shared) {
      const upload = this.uploads.get(file.id);
      await this.options.workspace.putFile({
        id: file.id,
        name: file.name,
        title: file.title,
        base64: upload?.content?.toString('base64') ?? '',
      });
      this.uploads.delete(file.id);
    }
    // Without a channel Slack keeps the files private to the uploader: nothing is posted.
    if (channel) await this.postFiles(channel.id, args, shared);
    return ok({ files: shared.map((f) => ({ id: f.id, title: f.title, name: f.name, size: f.size })) });
  }

  private readonly methods: Record<string, (args: Record<string, unknown>) => Promise<Answer> | Answer> = {
    // As Slack does, with the granted scopes in x-oauth-scopes: all the app asks for (manifest.yml).
    'auth.test': () => ({
      ...ok({
        url: `${this.options.pageUrl()}/`,
        team: TEAM.name,
        user: BOT.name,
        team_id: TEAM.id,
        user_id: BOT.id,
        bot_id: BOT.botId,
        is_enterprise_install: false,
      }),
      headers: { 'x-oauth-scopes': BOT_SCOPES.map((s) => s.scope).join(',') },
    }),
    'chat.postMessage': (args) => this.postMessage(args),
    'chat.postEphemeral': (args) => this.postEphemeral(args),
    'chat.update': (args) => this.update(args),
    'chat.delete': (args) => this.deleteMessage(args),
    'chat.getPermalink': async (args) => {
      const channel = resolveChannel(String(args.channel ?? ''));
      if (!channel) return refused('channel_not_found');
      const ts = String(args.message_ts ?? '');
      if (!(await this.options.workspace.message(channel.id, ts))) return refused('message_not_found');
      return ok({ channel: channel.id, permalink: `${this.options.pageUrl()}/#${channel.id}/${ts}` });
    },
    'files.getUploadURLExternal': (args) => this.getUploadUrl(args),
    'files.completeUploadExternal': (args) => this.completeUpload(args),
    'views.open': (args) => this.views.open(args),
    'views.push': (args) => this.views.push(args),
    'views.update': (args) => this.views.update(args),
    'views.publish': (args) => this.views.publish(args),
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
      const all = (await this.options.workspace.messages(channel.id)).filter(
        (m) => !m.visibleTo && !m.thread_ts,
      );
      return ok({ messages: all.reverse().slice(0, limit).map(slackMessage), has_more: all.length > limit });
    },
    'conversations.replies': async (args) => {
      const channel = resolveChannel(String(args.channel ?? ''));
      if (!channel) return refused('channel_not_found');
      const ts = String(args.ts ?? '');
      const all = (await this.options.workspace.messages(channel.id)).filter(
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
    const posted = await this.options.workspace.post({
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
    const posted = await this.options.workspace.post({
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
    const current = await this.options.workspace.message(channel.id, ts.data);
    if (!current || current.visibleTo) return refused('message_not_found');
    if (!current.bot) return refused('cant_update_message');
    // Omitted blocks are kept, as Slack does; an empty array removes them.
    const blocks = body.blocks === undefined ? current.blocks : (body.blocks as unknown[]);
    checkMessage({ text: body.text ?? current.text, blocks });
    const updated = await this.options.workspace.edit(channel.id, ts.data, (m) => {
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
    const current = await this.options.workspace.message(channel.id, ts);
    if (!current || current.visibleTo) return refused('message_not_found');
    if (!current.bot) return refused('cant_delete_message');
    await this.options.workspace.edit(channel.id, ts, () => 'delete');
    return ok({ channel: channel.id, ts });
  }
}
