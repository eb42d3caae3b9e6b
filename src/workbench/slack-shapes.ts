// Slack's answer and object shapes the workbench's Web API hands back, and how it reads WebClient's
// requests: the `{ok, error}` envelope, users, conversations, messages.

import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { BOT, dmOwner, GUESTS, TEAM, userById } from './people.js';
import type { WorkbenchMessage } from './protocol.js';
import { SlackRefusal } from './slack-rules.js';

const MAX_BODY = 1_000_000;

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export const ok = (body: Record<string, unknown> = {}): Answer => ({
  status: 200,
  body: { ok: true, ...body },
});
export const refused = (error: string, messages: string[] = []): Answer => ({
  status: 200,
  body: { ok: false, error, ...(messages.length ? { response_metadata: { messages } } : {}) },
});

/** A view's hash: changes with every update, so a stale views.update can be refused. */
export const newHash = () => `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`;

export function userObject(id: string) {
  const user = userById(id);
  const name = user?.name ?? id;
  return {
    id,
    team_id: TEAM.id,
    name: name.toLowerCase(),
    real_name: name,
    deleted: false,
    is_bot: false,
    ...(GUESTS.includes(id) ? { is_restricted: true, is_ultra_restricted: true } : {}),
    tz: 'Africa/Lagos',
    // With users:read.email (which the workbench grants, as the manifest asks) Slack adds the e-mail.
    profile: {
      real_name: name,
      display_name: name,
      title: user?.role ?? '',
      email: `${name.toLowerCase()}@example.com`,
    },
  };
}

export function conversationObject(id: string, name: string) {
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
export function slackMessage(m: WorkbenchMessage) {
  return {
    type: 'message',
    ts: m.ts,
    text: m.text,
    ...(m.bot ? { bot_id: BOT.botId, user: BOT.id, app_id: undefined } : { user: m.user }),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.thread_ts ? { thread_ts: m.thread_ts } : {}),
    ...(m.reply_count ? { reply_count: m.reply_count, thread_ts: m.ts } : {}),
    ...(m.edited ? { edited: { user: BOT.id, ts: m.ts } } : {}),
    ...(m.files
      ? {
          files: m.files.map((f) => ({ id: f.id, name: f.name, title: f.title, size: f.size })),
          upload: true,
        }
      : {}),
    team: TEAM.id,
  };
}

/** The request's bytes; more than `limit` is refused (request_too_large). */
export async function readBody(req: IncomingMessage, limit = MAX_BODY): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new SlackRefusal('request_too_large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function safeJson(raw: string): unknown {
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
