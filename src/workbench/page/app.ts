/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The workbench page: renders the state the server keeps (messages, modals, App Home) for the person
// chosen in "Acting as", and posts what they do. Live through server-sent events; a reload shows
// the same state because the page keeps none of its own beyond who is acting and what is open.
import './style.css';
import { USERS } from '../people.js';
import type { WorkbenchMessage, WorkbenchState } from '../protocol.js';
import { api, fetchState, listen } from './api.js';
import { blocks, type Choice } from './blocks.js';
import { type Composer, composer, type Hint } from './composer.js';
import { h, NodeCache, syncChildren } from './dom.js';
import { channelView, isReply, messageView, repliesOf, threadView } from './messages.js';
import { type ModalElement, renderModal, type Values } from './modal.js';
import type { Names } from './mrkdwn.js';
import { sandboxPanel } from './sandbox.js';

const HOME = 'home';
const USER_KEY = 'cngn-workbench.user';

let state: WorkbenchState | undefined;
// The demo people are fixed (people.ts), so the first state can be asked for someone who exists.
const stored = localStorage.getItem(USER_KEY);
let user = USERS.find((u) => u.id === stored)?.id ?? USERS[0]?.id ?? '';
let [current = '', thread = ''] = decodeURIComponent(location.hash.slice(1)).split(':');
let modal: { element: ModalElement; id: string; hash: string; errors: string } | undefined;

/** Message nodes of the open conversation, reused while unchanged. */
const drawn = new NodeCache();

const hints = JSON.parse(document.getElementById('hints')?.textContent ?? '[]') as Hint[];

const banner = h('div', { class: 'banner', role: 'banner' });
const sidebar = h('aside', { class: 'sidebar' });
const channelHeader = h('header', { class: 'channel-header' });
const log = h('div', { class: 'messages', role: 'log', 'aria-live': 'polite' });
const threadPane = h('aside', { class: 'thread', 'aria-label': 'Thread', hidden: true });
const toasts = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });

const names: Names = {
  user: (id) =>
    state?.users.find((u) => u.id === id)?.name ?? (id === state?.bot.id ? state.bot.name : undefined),
  channel: (id) => state?.channels.find((c) => c.id === id)?.name,
};

function toast(text: string, error = false): void {
  const note = h('div', { class: `toast${error ? ' error' : ''}`, role: error ? 'alert' : null }, text);
  toasts.appendChild(note);
  setTimeout(() => note.remove(), error ? 8000 : 4000);
}

async function answered(
  promise: Promise<{ ok: boolean; error?: string; version?: number }>,
): Promise<boolean> {
  const answer = await promise;
  if (!answer.ok) toast(answer.error ?? 'The workbench refused that.', true);
  if (answer.version !== undefined && state && answer.version > state.version) void refresh();
  return answer.ok;
}

// ---- state ----

let loading: Promise<void> | undefined;
let again = false;

async function load(): Promise<void> {
  const asked = user;
  const next = await fetchState(asked);
  // The person switched while this was on its way: the fetch that follows draws theirs.
  if (asked !== user) {
    again = true;
    return;
  }
  state = next;
  render();
  log.setAttribute('aria-busy', 'false');
}

/** One fetch at a time; a change announced meanwhile fetches once more after it. */
function refresh(): Promise<void> {
  if (loading) {
    again = true;
    return loading;
  }
  loading = load()
    .catch((error: unknown) => toast(`Could not read the workbench state: ${String(error)}`, true))
    .finally(() => {
      loading = undefined;
      if (again) {
        again = false;
        void refresh();
      }
    });
  return loading;
}

// ---- what the person does ----

function act(container: Parameters<typeof api.action>[0]['container'], choice: Choice): void {
  void answered(api.action({ user, container, ...choice }));
}

async function send(text: string, threadTs?: string): Promise<boolean> {
  if (!state || current === HOME) return false;
  if (/^\/cngn(\s|$)/i.test(text)) return answered(api.command({ user, channel: current, text }));
  if (text.startsWith('/')) {
    toast(`${text.split(/\s/)[0]} is not a command here. Try /cngn help.`, true);
    return false;
  }
  return answered(
    api.message({ user, channel: current, text, ...(threadTs ? { thread_ts: threadTs } : {}) }),
  );
}

function go(channel: string, threadTs = ''): void {
  current = channel;
  thread = threadTs;
  history.replaceState(null, '', `#${encodeURIComponent(thread ? `${current}:${thread}` : current)}`);
  if (channel === HOME) void answered(api.home({ user }));
  render(true);
}

// ---- rendering ----

const mainComposer: Composer = composer(hints, (text) => send(text));
const replyComposer: Composer = composer([], (text) => send(text, thread), 'Reply');

function seenKey(channel: string): string {
  return `cngn-workbench.seen.${user}.${channel}`;
}

function unread(channel: string): number {
  const seen = Number(localStorage.getItem(seenKey(channel)) ?? '0');
  return (state?.messages[channel] ?? []).filter((m) => !isReply(m) && Number(m.ts) > seen && m.user !== user)
    .length;
}

function markSeen(channel: string): void {
  const last = (state?.messages[channel] ?? []).at(-1);
  if (last) localStorage.setItem(seenKey(channel), last.ts);
}

function renderSidebar(s: WorkbenchState): void {
  const select = h(
    'select',
    {
      id: 'acting-as',
      class: 'acting-as',
      onchange: (event: Event) => {
        user = (event.target as HTMLSelectElement).value;
        localStorage.setItem(USER_KEY, user);
        log.setAttribute('aria-busy', 'true'); // until this person's state is drawn
        modal?.element.dialog.remove();
        modal = undefined;
        thread = '';
        void refresh();
        if (current === HOME) void answered(api.home({ user }));
      },
    },
    s.users.map((u) => h('option', { value: u.id, selected: u.id === user }, `${u.name} — ${u.role}`)),
  );
  const item = (id: string, label: string, prefix: string) => {
    const count = id === current || id === HOME ? 0 : unread(id);
    return h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: `nav-item${id === current ? ' current' : ''}${count ? ' unread' : ''}`,
          'aria-current': id === current ? 'page' : null,
          onclick: () => go(id),
        },
        h('span', { class: 'prefix', 'aria-hidden': 'true' }, prefix),
        h('span', { class: 'nav-label' }, label),
        count ? h('span', { class: 'badge', 'aria-label': `${count} new` }, String(count)) : null,
      ),
    );
  };
  const channels = s.channels.filter((c) => c.kind === 'channel');
  const dms = s.channels.filter((c) => c.kind === 'dm');
  sidebar.replaceChildren(
    h('div', { class: 'workspace' }, h('strong', {}, 'cngn-desk'), h('span', {}, 'workbench')),
    h(
      'div',
      { class: 'acting' },
      h('label', { for: 'acting-as' }, 'Acting as'),
      select,
      // The select is narrow: the whole role is written under it.
      h('div', { class: 'acting-role' }, s.users.find((u) => u.id === user)?.role ?? ''),
    ),
    h(
      'nav',
      { 'aria-label': 'Conversations' },
      h('h2', { class: 'nav-heading' }, 'Channels'),
      h(
        'ul',
        {},
        channels.map((c) => item(c.id, c.name, '#')),
      ),
      h('h2', { class: 'nav-heading' }, 'Direct messages'),
      h(
        'ul',
        {},
        dms.map((c) => item(c.id, c.name, '●')),
      ),
      h('h2', { class: 'nav-heading' }, 'Apps'),
      h('ul', {}, item(HOME, 'App Home', '⌂')),
    ),
  );
  if (s.sandbox) {
    sandboxPane.showPasskeys(s.passkeysRequired);
    sidebar.appendChild(sandboxPane.element);
  }
}

const sandboxPane = sandboxPanel(
  async (action, body) => {
    const answer = await api.sandbox(action, body);
    if (answer.version !== undefined && state && answer.version > state.version) void refresh();
    return answer;
  },
  async (required) => {
    const answer = await api.passkeys({ required });
    // The state carries the rule too: read it again so a later render shows the switch as set.
    void refresh();
    return answer;
  },
);

function messageContext(s: WorkbenchState, channel: string) {
  return {
    state: s,
    names,
    actOn: (message: WorkbenchMessage, choice: Choice) =>
      act({ type: 'message', channel, ts: message.ts }, choice),
    openThread: (message: WorkbenchMessage) => go(channel, message.ts),
  };
}

function renderChannel(s: WorkbenchState, switched: boolean): void {
  const nearBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  if (current === HOME) {
    channelHeader.replaceChildren(h('h1', {}, `${s.bot.name}`), h('span', { class: 'topic' }, 'App Home'));
    log.setAttribute('aria-label', 'App Home');
    log.replaceChildren(
      s.home
        ? h(
            'div',
            { class: 'home' },
            blocks(s.home.blocks, { names, act: (choice) => act({ type: 'home' }, choice) }),
          )
        : h('div', { class: 'empty-state' }, `${s.bot.name} has not published an App Home for you yet.`),
    );
    mainComposer.root.hidden = true;
    return;
  }
  const channel = s.channels.find((c) => c.id === current);
  const label = channel ? (channel.kind === 'dm' ? channel.name : `#${channel.name}`) : current;
  channelHeader.replaceChildren(
    h('h1', {}, label),
    h(
      'span',
      { class: 'topic' },
      {
        treasury: 'Type /cngn here — balances, deposits, withdrawals',
        approvals: 'Approval requests: a second person approves every money movement',
        alerts: 'Deposits, settlements and failures from the service',
      }[channel?.name ?? ''] ?? (channel?.kind === 'dm' ? `Direct messages with ${s.bot.name}` : ''),
    ),
  );
  log.setAttribute('aria-label', `Messages in ${label}`);
  const list = s.messages[current] ?? [];
  const ctx = messageContext(s, current);
  syncChildren(log, [
    ...(list.length
      ? channelView(list, ctx, drawn, `${user}|${current}`)
      : [
          h(
            'div',
            { class: 'empty-state' },
            current === s.channels[0]?.id ? 'Type /cngn help below to begin.' : 'Nothing here yet.',
          ),
        ]),
  ]);
  drawn.sweep();
  mainComposer.root.hidden = false;
  mainComposer.setPlaceholder(`Message ${label}`);
  if (switched || nearBottom) log.scrollTop = log.scrollHeight;
  markSeen(current);
}

function renderThread(s: WorkbenchState): void {
  const list = s.messages[current] ?? [];
  const parent = thread ? list.find((m) => m.ts === thread) : undefined;
  if (!parent || current === HOME) {
    threadPane.hidden = true;
    return;
  }
  const ctx = messageContext(s, current);
  const replies = repliesOf(parent, list);
  threadPane.hidden = false;
  threadPane.replaceChildren(
    h(
      'header',
      { class: 'thread-header' },
      h('h2', {}, 'Thread'),
      h(
        'button',
        { type: 'button', class: 'icon-btn', 'aria-label': 'Close thread', onclick: () => go(current) },
        '✕',
      ),
    ),
    h(
      'div',
      { class: 'thread-messages' },
      messageView(parent, { ...ctx, openThread: undefined }),
      h('div', { class: 'reply-count' }, `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`),
      threadView(replies, ctx),
    ),
    replyComposer.root,
  );
  replyComposer.setPlaceholder('Reply…');
}

function renderModalStack(s: WorkbenchState): void {
  const top = s.modals.at(-1);
  if (!top) {
    if (modal) {
      modal.element.dialog.close();
      modal.element.dialog.remove();
      modal = undefined;
    }
    return;
  }
  const errors = JSON.stringify(top.errors ?? {});
  if (modal && modal.id === top.id && modal.hash === top.hash) {
    modal.element.setBusy(false);
    if (modal.errors !== errors) {
      modal.errors = errors;
      modal.element.setErrors(top.errors);
    }
    return;
  }
  // views.update keeps what the person typed in inputs with the same block and action ids, as Slack does.
  const previous: Values | undefined = modal?.id === top.id ? modal.element.values() : undefined;
  const viewId = top.id;
  const element = renderModal(
    top.view,
    {
      names,
      act: (choice) => act({ type: 'view', view_id: viewId }, choice),
      submit: (values) => {
        element.setBusy(true);
        void answered(api.submit({ user, view_id: viewId, values })).then((ok) => {
          if (!ok) element.setBusy(false);
        });
      },
      close: () => void answered(api.close({ user, view_id: viewId })),
      suggest: (block_id, action_id, value) =>
        api.suggest({ user, view_id: viewId, block_id, action_id, value }),
    },
    s.modals.length,
  );
  if (previous) element.restore(previous);
  element.setErrors(top.errors);
  modal?.element.dialog.remove();
  modal = { element, id: top.id, hash: top.hash, errors };
  document.body.appendChild(element.dialog);
  element.dialog.showModal();
  if (!top.errors || Object.keys(top.errors).length === 0) {
    element.dialog
      .querySelector<HTMLElement>('.modal-body input, .modal-body textarea, .modal-body select')
      ?.focus();
  }
}

function render(switched = false): void {
  const s = state;
  if (!s) return;
  if (!current || (current !== HOME && !s.channels.some((c) => c.id === current)))
    current = s.channels[0]?.id ?? '';
  banner.replaceChildren(
    h(
      'span',
      { class: 'banner-title' },
      h('strong', {}, 'LOCAL WORKBENCH — not Slack'),
      ' · ',
      h('strong', { class: `env ${s.environment.toLowerCase()}` }, s.environment),
    ),
    h('span', { class: 'banner-note' }, 'anyone here can act as anyone; no real money is reachable'),
  );
  const where = current === HOME ? 'App Home' : `#${names.channel(current) ?? current}`;
  document.title = `${where} · cngn-desk workbench · ${s.environment}`;
  renderSidebar(s);
  renderChannel(s, switched);
  renderThread(s);
  renderModalStack(s);
}

// ---- start ----

document.body.replaceChildren(
  banner,
  h(
    'div',
    { class: 'shell' },
    sidebar,
    h('main', { class: 'channel' }, channelHeader, log, mainComposer.root),
    threadPane,
  ),
  toasts,
);
listen(
  (version) => {
    if (!state || version !== state.version) void refresh();
  },
  () => void refresh(),
);
void refresh().then(() => {
  if (current === HOME) void answered(api.home({ user }));
  mainComposer.focus();
});
