// A fake Slack Web API on 127.0.0.1 that records every call. Point Bolt's clientOptions.slackApiUrl
// at `${apiUrl}` and use `responseUrl(name)` as a slash command's response_url.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BOT_SCOPES } from '../../src/slack/runtime/scopes.js';
import { triggerAgeMs } from './slack-requests.js';

export interface SlackCall {
  /** Web API method (`chat.postMessage`) or `response_url:<name>` for response_url posts. */
  method: string;
  body: Record<string, unknown>;
  at: number;
  /** Set when the fake refused the call the way Slack does (`{ok: false, error}`). */
  error?: string;
  /** What the fake answered (set in the same tick the call is recorded). */
  answer?: unknown;
}

/** The id of the view a views.open (or update, push, publish) call opened, as the fake answered it. */
export function openedViewId(call: SlackCall): string {
  const id = (call.answer as { view?: { id?: unknown } } | undefined)?.view?.id;
  if (typeof id !== 'string') throw new Error(`${call.method} opened no view`);
  return id;
}

/** A single-channel guest of the workspace, as users.info describes them. */
export const GUEST = 'UGUEST';
/** A bot user (another app's), as users.info describes it. */
export const BOT_USER = 'UOTHERBOT';
/** The workspace auth.test names (the bot's home); every other user is its member unless set in `people`. */
const HOME_TEAM = 'T1';
/** A Slack Connect member of a shared channel: users.info names their own workspace. */
export const EXTERNAL = 'UEXTERNAL';
/** Their workspace. */
export const OTHER_TEAM = 'T0EVIL';

/** Slack honours a trigger_id for 3 seconds after the interaction. */
const TRIGGER_LIFETIME_MS = 3_000;

export type SlackHandler = (
  call: SlackCall,
) => { status?: number; headers?: Record<string, string>; body?: unknown } | undefined;

/** A file uploaded the way files.uploadV2 does it: getUploadURLExternal → POST bytes → completeUploadExternal. */
export interface UploadedFile {
  id: string;
  filename: string;
  /** The length announced to getUploadURLExternal. */
  length: number;
  content?: Buffer;
  /** Set once completeUploadExternal shared it. */
  channel?: string;
  title?: string;
  comment?: string;
  /** The image description given to getUploadURLExternal. */
  altText?: string;
}

export interface FakeSlackOptions {
  /**
   * Slack's per-channel limit on chat.postMessage: a token bucket refilled at `perSecond`, holding at
   * most `burst`; an empty bucket answers 429 with Retry-After (whole seconds, as Slack sends).
   */
  rateLimit?: { perSecond: number; burst: number };
  /** The rate limit's clock, in ms (default: real time). */
  now?: () => number;
}

/** A message as the channel shows it now: its last posted or updated text and blocks. */
export interface ShownMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown;
  updates: number;
}

export class FakeSlack {
  readonly calls: SlackCall[] = [];
  /** The scopes auth.test names in its x-oauth-scopes header, as Slack does: all the app asks for. */
  scopes: string[] = BOT_SCOPES.map((s) => s.scope);
  /**
   * Names users.info gives (set or change one in a test); anyone else is a member with no name. Everyone
   * has the e-mail `<id in lower case>@example.com` unless named here, shown only with users:read.email.
   */
  readonly people = new Map<
    string,
    {
      name?: string;
      email?: string;
      /** users.info's team_id (default HOME_TEAM); `enterprise` its enterprise_user.enterprise_id. */
      team?: string;
      enterprise?: string;
      stranger?: boolean;
      guest?: boolean;
      deleted?: boolean;
    }
  >();
  /** auth.test's enterprise_id: set to play an Enterprise Grid workspace. */
  enterpriseId: string | undefined;
  readonly uploads = new Map<string, UploadedFile>();
  /** 429s the rate limiter answered. */
  rateLimited = 0;
  private server!: Server;
  private handlers = new Map<string, SlackHandler>();
  private holds = new Map<string, { arrived: () => void; released: Promise<void> }>();
  private losses: Array<{ method: string; test: (c: SlackCall) => boolean }> = [];
  private waiters: Array<{ test: (c: SlackCall) => boolean; resolve: (c: SlackCall) => void }> = [];
  private counter = 0;
  private readonly shown = new Map<string, ShownMessage>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private options: FakeSlackOptions = {};
  baseUrl = '';

  static async start(options: FakeSlackOptions = {}): Promise<FakeSlack> {
    const fake = new FakeSlack();
    fake.options = options;
    fake.server = createServer((req, res) => void fake.handle(req, res));
    fake.server.listen(0, '127.0.0.1');
    await once(fake.server, 'listening');
    fake.baseUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Bolt/WebClient slackApiUrl (with the trailing slash WebClient expects). */
  get apiUrl(): string {
    return `${this.baseUrl}/api/`;
  }

  responseUrl(name = 'default'): string {
    return `${this.baseUrl}/response/${name}`;
  }

  /** Override the answer for one method; return undefined from the handler to fall back. */
  on(method: string, handler: SlackHandler): void {
    this.handlers.set(method, handler);
  }

  /**
   * Hold the next call to `method` unanswered until released (it is recorded then): its caller is
   * mid-call meanwhile, where a test may kill it.
   */
  hold(method: string): { arrived: Promise<void>; release(): void } {
    let arrived!: () => void;
    let release!: () => void;
    const came = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.holds.set(method, { arrived, released });
    return { arrived: came, release };
  }

  /**
   * Take the next call to `method` that matches `test` as usual (recorded, and shown in its channel),
   * then cut its connection instead of answering: Slack accepted it, but its caller never hears so.
   */
  loseAnswer(method: string, test: (c: SlackCall) => boolean = () => true): void {
    this.losses.push({ method, test });
  }

  callsTo(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Resolves with the first call (already made or future) that matches. */
  waitFor(
    method: string,
    test: (c: SlackCall) => boolean = () => true,
    timeoutMs = 10_000,
  ): Promise<SlackCall> {
    const match = (c: SlackCall) => c.method === method && test(c);
    const existing = this.calls.find(match);
    if (existing) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`No ${method} call matched within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        test: match,
        resolve: (c) => {
          clearTimeout(timer);
          resolve(c);
        },
      });
    });
  }

  reset(): void {
    this.calls.length = 0;
    this.handlers.clear();
    this.shown.clear();
  }

  /** Messages as the channels show them now (chat.update applied), in the order they were posted. */
  messages(channel?: string): ShownMessage[] {
    return [...this.shown.values()].filter((m) => channel === undefined || m.channel === channel);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  /** Files shared (completed), in the order they were completed. */
  sharedFiles(): UploadedFile[] {
    return [...this.uploads.values()].filter((f) => f.channel !== undefined);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.baseUrl);
    if (url.pathname.startsWith('/upload/')) {
      await this.receiveUpload(url.pathname.slice('/upload/'.length), Buffer.concat(chunks), req, res);
      return;
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    const method = url.pathname.startsWith('/api/')
      ? url.pathname.slice('/api/'.length)
      : `response_url:${url.pathname.slice('/response/'.length)}`;
    const call: SlackCall = { method, body: parseBody(raw, req.headers['content-type']), at: Date.now() };
    const waitSeconds = this.rateLimitWait(call);
    if (waitSeconds !== undefined) {
      this.rateLimited += 1;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(waitSeconds) });
      res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      return;
    }
    const held = this.holds.get(method);
    if (held) {
      this.holds.delete(method);
      held.arrived();
      await held.released;
    }
    const custom = this.handlers.get(method)?.(call);
    if (custom?.status && custom.status >= 400) {
      res.writeHead(custom.status, { 'content-type': 'application/json', ...custom.headers });
      res.end(JSON.stringify(custom.body ?? { ok: false, error: 'ratelimited' }));
      return;
    }
    const refusal = this.refusal(call);
    if (refusal) call.error = refusal;
    this.calls.push(call);
    for (const waiter of [...this.waiters]) {
      if (waiter.test(call)) {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        waiter.resolve(call);
      }
    }
    const body = withTeam(
      method,
      custom?.body ?? (refusal ? { ok: false, error: refusal } : this.defaultAnswer(method, call.body)),
    );
    call.answer = body;
    if ((custom?.status ?? 200) === 200) this.show(method, call.body, body);
    const lost = this.losses.findIndex((l) => l.method === method && l.test(call));
    if (lost >= 0) {
      this.losses.splice(lost, 1);
      res.destroy();
      return;
    }
    // Slack names the token's scopes on every answer; the start-up check reads them from auth.test.
    const scopes = method === 'auth.test' ? { 'x-oauth-scopes': this.scopes.join(',') } : {};
    res.writeHead(custom?.status ?? 200, {
      'content-type': 'application/json',
      ...scopes,
      ...custom?.headers,
    });
    res.end(JSON.stringify(body));
  }

  /** The upload URL's POST: WebClient sends the bytes as multipart form data (field `body`). */
  private async receiveUpload(
    id: string,
    raw: Buffer,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const upload = this.uploads.get(id);
    const contentType = String(req.headers['content-type'] ?? '');
    let content: Buffer | undefined;
    if (contentType.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(raw), {
        headers: { 'content-type': contentType },
      }).formData();
      const part = form.get('body') ?? form.get('file');
      if (part && typeof part !== 'string') content = Buffer.from(await part.arrayBuffer());
      else if (typeof part === 'string') content = Buffer.from(part, 'utf8');
    } else {
      content = raw;
    }
    if (!upload || !content) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('unknown upload');
      return;
    }
    upload.content = content;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`OK - ${content.length}`);
  }

  /** Seconds to wait when the channel's bucket is empty (chat.postMessage only); undefined: go ahead. */
  private rateLimitWait(call: SlackCall): number | undefined {
    const limit = this.options.rateLimit;
    if (!limit || call.method !== 'chat.postMessage') return undefined;
    const channel = String(call.body.channel ?? '');
    const now = this.options.now?.() ?? Date.now();
    const bucket = this.buckets.get(channel) ?? { tokens: limit.burst, at: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * limit.perSecond);
    bucket.at = now;
    this.buckets.set(channel, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
  }

  /** Keep what the channel shows: a post adds a message, an update replaces its text and blocks. */
  private show(method: string, body: Record<string, unknown>, answer: unknown): void {
    const ok = (answer as { ok?: boolean }).ok;
    if (!ok) return;
    if (method === 'chat.postMessage') {
      const ts = String((answer as { ts?: string }).ts);
      const channel = String((answer as { channel?: string }).channel ?? body.channel);
      this.shown.set(`${channel}/${ts}`, {
        channel,
        ts,
        text: String(body.text ?? ''),
        blocks: body.blocks,
        updates: 0,
      });
    } else if (method === 'chat.update') {
      const shown = this.shown.get(`${String(body.channel)}/${String(body.ts)}`);
      if (!shown) return;
      shown.text = String(body.text ?? '');
      shown.blocks = body.blocks;
      shown.updates += 1;
    }
  }

  /** What Slack itself would refuse: a message text over 40,000 characters, views.open with a trigger_id older than 3 s. */
  private refusal(call: SlackCall): string | undefined {
    if (call.method.startsWith('chat.') && String(call.body.text ?? '').length > 40_000)
      return 'msg_too_long';
    if (call.method !== 'views.open') return undefined;
    const age = triggerAgeMs(call.body.trigger_id, call.at);
    return age !== undefined && age > TRIGGER_LIFETIME_MS ? 'expired_trigger_id' : undefined;
  }

  /**
   * A member of the workspace, active, a person; with no name unless `people` has one (answers then show
   * the mention), and their e-mail only with users:read.email, as Slack does.
   */
  private userObject(id: string): Record<string, unknown> {
    const known = this.people.get(id);
    const email = known?.email ?? `${id.toLowerCase()}@example.com`;
    const named = known?.name ? { real_name: known.name } : {};
    const profile = {
      ...(known?.name ? { real_name: known.name, display_name: known.name } : {}),
      ...(this.scopes.includes('users:read.email') ? { email } : {}),
    };
    // Three ids are not plain members: a single-channel guest, a bot user and a member of another
    // workspace (the access gate refuses all three); `people` makes anyone else one.
    const guest = id === GUEST || known?.guest;
    const kind = guest ? { is_restricted: true, is_ultra_restricted: true } : {};
    const team = known?.team ?? (id === EXTERNAL ? OTHER_TEAM : HOME_TEAM);
    const enterprise = known?.enterprise ?? this.enterpriseId;
    return {
      id,
      team_id: team,
      deleted: known?.deleted === true,
      is_bot: id === BOT_USER,
      ...(known?.stranger ? { is_stranger: true } : {}),
      ...(enterprise ? { enterprise_user: { enterprise_id: enterprise, teams: [team] } } : {}),
      ...kind,
      ...named,
      profile,
    };
  }

  private defaultAnswer(method: string, body: Record<string, unknown>): unknown {
    const ts = `${Math.floor(Date.now() / 1000)}.${String(++this.counter).padStart(6, '0')}`;
    switch (method) {
      case 'chat.postMessage': {
        // As Slack does: a post to a user id lands in the app's DM with them, and names that DM (D…).
        const channel = /^[UW][A-Z0-9_]+$/.test(String(body.channel))
          ? `D${String(body.channel)}`
          : body.channel;
        return { ok: true, channel, ts, message: { ts, text: body.text } };
      }
      case 'chat.update':
        return { ok: true, channel: body.channel, ts: body.ts };
      case 'chat.getPermalink':
        return {
          ok: true,
          channel: body.channel,
          permalink: `https://example.slack.com/archives/${String(body.channel)}/p${String(body.message_ts).replace('.', '')}`,
        };
      case 'chat.postEphemeral':
        return { ok: true, message_ts: ts };
      case 'views.open':
      case 'views.update':
      case 'views.push':
      case 'views.publish':
        return { ok: true, view: { id: `V${this.counter}`, hash: `h${this.counter}` } };
      case 'auth.test':
        return {
          ok: true,
          user_id: 'UBOT',
          user: 'cngn-desk',
          bot_id: 'BBOT',
          team_id: HOME_TEAM,
          team: 'Treasury',
          ...(this.enterpriseId ? { enterprise_id: this.enterpriseId } : {}),
          url: 'https://example.slack.com/',
        };
      case 'usergroups.users.list':
        return { ok: true, users: [] };
      case 'conversations.info': {
        // Every channel exists and the bot is in it, unless a test says otherwise (on()).
        const id = String(body.channel);
        return {
          ok: true,
          channel: { id, name: id.toLowerCase(), is_channel: true, is_member: true, is_archived: false },
        };
      }
      case 'users.info':
        return { ok: true, user: this.userObject(String(body.user)) };
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(body.users ?? 'X').split(',')[0]}` } };
      case 'files.getUploadURLExternal': {
        const id = `F${String(this.counter).padStart(8, '0')}`;
        const altText = body.alt_text ?? body.alt_txt;
        this.uploads.set(id, {
          id,
          filename: String(body.filename),
          length: Number(body.length),
          ...(typeof altText === 'string' ? { altText } : {}),
        });
        return { ok: true, upload_url: `${this.baseUrl}/upload/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal': {
        const files = (typeof body.files === 'string' ? safeJson(body.files) : body.files) as Array<{
          id: string;
          title?: string;
        }>;
        for (const file of files ?? []) {
          const upload = this.uploads.get(file.id);
          if (!upload?.content) return { ok: false, error: 'file_upload_not_found' };
          upload.channel = String(body.channel_id ?? body.channels ?? '');
          if (file.title) upload.title = file.title;
          if (body.initial_comment) upload.comment = String(body.initial_comment);
        }
        return { ok: true, files: (files ?? []).map((f) => ({ id: f.id, title: f.title })) };
      }
      default:
        return { ok: true };
    }
  }
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const params = new URLSearchParams(raw);
  const out: Record<string, unknown> = {};
  for (const [key, value] of params) {
    // WebClient form-encodes nested values as JSON text (blocks, view, attachments).
    out[key] = /^[[{]/.test(value) ? safeJson(value) : value;
  }
  return out;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * As Slack does, every user object users.info answers names its workspace: a test's own answer that
 * leaves it out is given the home one.
 */
function withTeam(method: string, body: unknown): unknown {
  if (method !== 'users.info') return body;
  const user = (body as { user?: Record<string, unknown> } | undefined)?.user;
  if (!user || typeof user !== 'object' || 'team_id' in user) return body;
  return { ...(body as object), user: { team_id: HOME_TEAM, ...user } };
}
