/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Messages as Slack lays them out: author, time, "(edited)", "Only visible to you" for ephemerals,
// Block Kit (or the text when there are no blocks), and "N replies" under a thread's parent.
import type { WorkbenchMessage, WorkbenchState } from '../protocol.js';
import { type BlockContext, blocks, type Choice } from './blocks.js';
import { h, type NodeCache } from './dom.js';
import { mrkdwn } from './mrkdwn.js';

export interface MessageContext {
  state: WorkbenchState;
  names: BlockContext['names'];
  /** A click in a message's blocks, with the message it is in (container for block_actions). */
  actOn(message: WorkbenchMessage, choice: Choice): void;
  openThread?(message: WorkbenchMessage): void;
}

const COLOURS = ['#4a154b', '#1264a3', '#2eb67d', '#e01e5a', '#ecb22e', '#36c5f0'];

function author(message: WorkbenchMessage, state: WorkbenchState): { name: string; bot: boolean } {
  if (message.bot || !message.user || message.user === state.bot.id)
    return { name: state.bot.name, bot: true };
  return { name: state.users.find((u) => u.id === message.user)?.name ?? message.user, bot: false };
}

function avatar(name: string, bot: boolean): HTMLElement {
  const colour = bot
    ? '#14532d'
    : COLOURS[[...name].reduce((n, c) => n + c.charCodeAt(0), 0) % COLOURS.length];
  return h(
    'div',
    { class: 'avatar', style: `background:${colour}`, 'aria-hidden': 'true' },
    bot ? '₦' : name.slice(0, 1),
  );
}

function time(ts: string): HTMLElement {
  const date = new Date(Number(ts.split('.')[0]) * 1000);
  const short = date.toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });
  return h('time', { datetime: date.toISOString(), title: date.toLocaleString() }, short);
}

export function isReply(message: WorkbenchMessage): boolean {
  return Boolean(message.thread_ts && message.thread_ts !== message.ts);
}

export function repliesOf(parent: WorkbenchMessage, all: WorkbenchMessage[]): WorkbenchMessage[] {
  return all.filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts);
}

/** Slack folds a message into the one before when the same author posts again within minutes. */
function continues(message: WorkbenchMessage, previous: WorkbenchMessage | undefined): boolean {
  if (!previous) return false;
  const sameAuthor =
    Boolean(previous.bot) === Boolean(message.bot) &&
    previous.user === message.user &&
    Boolean(previous.visibleTo) === Boolean(message.visibleTo);
  return sameAuthor && Number(message.ts) - Number(previous.ts) < 300;
}

export function messageView(
  message: WorkbenchMessage,
  ctx: MessageContext,
  replies = 0,
  continued = false,
): HTMLElement {
  const who = author(message, ctx.state);
  const ephemeral = Boolean(message.visibleTo);
  const content =
    message.blocks && message.blocks.length > 0
      ? blocks(message.blocks, { names: ctx.names, act: (choice) => ctx.actOn(message, choice) })
      : mrkdwn(message.text, ctx.names);
  return h(
    'article',
    {
      class: `msg${ephemeral ? ' ephemeral' : ''}${continued ? ' continued' : ''}`,
      'data-ts': message.ts,
      'aria-label': `${who.name}${ephemeral ? ' (only visible to you)' : ''}`,
    },
    continued ? h('div', { class: 'gutter' }, time(message.ts)) : avatar(who.name, who.bot),
    h(
      'div',
      { class: 'msg-body' },
      metaLine(message, who, continued),
      // Slack marks every ephemeral message, a follow-on one too.
      ephemeral ? h('div', { class: 'only-you' }, '👁 Only visible to you') : null,
      h('div', { class: 'content' }, content),
      // A follow-on message has no meta line: its "(edited)" follows the content, as in Slack.
      message.edited && continued ? h('span', { class: 'edited' }, '(edited)') : null,
      message.files?.length ? h('div', { class: 'files' }, ...message.files.map(fileCard)) : null,
      repliesButton(message, ctx, replies),
    ),
  );
}

/** Author, app badge, time and "(edited)"; present but hidden on a follow-on message. */
function metaLine(
  message: WorkbenchMessage,
  who: { name: string; bot: boolean },
  continued: boolean,
): HTMLElement {
  return h(
    'div',
    { class: 'meta', hidden: continued },
    continued ? null : h('span', { class: 'author' }, who.name),
    continued || !who.bot ? null : h('span', { class: 'app-badge' }, 'APP'),
    continued ? null : time(message.ts),
    message.edited && !continued ? h('span', { class: 'edited' }, '(edited)') : null,
  );
}

/** "3 replies", opening the thread; none without replies or where threads do not open. */
function repliesButton(message: WorkbenchMessage, ctx: MessageContext, replies: number): HTMLElement | null {
  if (replies <= 0 || !ctx.openThread) return null;
  return h(
    'button',
    { type: 'button', class: 'replies', onclick: () => ctx.openThread?.(message) },
    `${replies} ${replies === 1 ? 'reply' : 'replies'}`,
  );
}

const SIZE_UNITS = ['B', 'KB', 'MB', 'GB'];

/** "812 B", "14 KB", "2.3 MB", as Slack labels a file. */
function fileSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const shown = unit === 0 || value >= 10 ? String(Math.round(value)) : value.toFixed(1);
  return `${shown} ${SIZE_UNITS[unit]}`;
}

/** A shared file as Slack shows it: its name, size and kind, and a Download link; a PNG's picture too. */
function fileCard(file: NonNullable<WorkbenchMessage['files']>[number]): HTMLElement {
  const extension = file.name.includes('.') ? (file.name.split('.').pop() ?? '').toUpperCase() : 'FILE';
  const safe = /^https?:\/\//i.test(file.url);
  const card = h(
    'div',
    { class: 'file-card', 'data-file': file.id },
    h('div', { class: 'file-icon', 'aria-hidden': 'true' }, extension.slice(0, 5)),
    h(
      'div',
      { class: 'file-info' },
      h('div', { class: 'file-name', title: file.title }, file.name),
      h('div', { class: 'file-meta' }, `${fileSize(file.size)} ${extension}`),
    ),
    safe
      ? h('a', { class: 'file-download', href: file.url, download: file.name, rel: 'noopener' }, 'Download')
      : null,
  );
  if (!file.preview) return card;
  // As Slack shows an image: the picture above its name, described by the bot's alt text.
  return h(
    'figure',
    { class: 'file-image', 'data-file-image': file.id },
    h('figcaption', { class: 'file-title' }, file.title),
    h('img', { class: 'file-preview', src: file.preview, alt: file.alt ?? file.title, title: file.title }),
    card,
  );
}

/** Top-level messages of a channel with their reply counts; unchanged ones keep their nodes. */
export function channelView(
  list: WorkbenchMessage[],
  ctx: MessageContext,
  cache: NodeCache,
  scope: string,
): HTMLElement[] {
  const out: HTMLElement[] = [];
  let lastDay = '';
  let previous: WorkbenchMessage | undefined;
  for (const message of list) {
    if (isReply(message)) continue;
    const day = new Date(Number(message.ts.split('.')[0]) * 1000).toDateString();
    if (day !== lastDay) {
      lastDay = day;
      previous = undefined;
      out.push(
        cache.get(`${scope}|day|${day}`, day, () =>
          h('div', { class: 'day', role: 'separator' }, h('span', {}, day)),
        ),
      );
    }
    const replies = Math.max(repliesOf(message, list).length, message.reply_count ?? 0);
    // A thread parent stands on its own, as in Slack.
    const folded = continues(message, previous) && replies === 0 && !previous?.reply_count;
    const signature = `${replies}|${folded}|${JSON.stringify(message)}`;
    out.push(
      cache.get(`${scope}|${message.ts}`, signature, () => messageView(message, ctx, replies, folded)),
    );
    previous = replies > 0 ? undefined : message;
  }
  return out;
}

/** A thread's replies, folded the same way. */
export function threadView(replies: WorkbenchMessage[], ctx: MessageContext): HTMLElement[] {
  return replies.map((message, n) => messageView(message, ctx, 0, continues(message, replies[n - 1])));
}
