// The page alone, in Chromium: every kind of message and modal the bot sends, built by the bot's own
// Block Kit builders, served as workbench state by a stand-in for the workbench server. Checks what
// a person sees (mrkdwn, mentions, emoji, threads, ephemerals, edits, modals and their inputs) and
// that outside text is never turned into HTML.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { test as base, describe, expect } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { lagosTime } from '../../src/format/display.js';
import { redeemModal } from '../../src/slack/approvals/blocks/bank-modal.js';
import { approvalDm } from '../../src/slack/approvals/blocks/dm.js';
import { approvalMessage } from '../../src/slack/approvals/blocks/message.js';
import { withdrawModal } from '../../src/slack/approvals/blocks/modals.js';
import { helpMessage } from '../../src/slack/commands/help.js';
import { SUBCOMMANDS } from '../../src/slack/commands/registry.js';
import { balanceMessage } from '../../src/slack/reads/blocks.js';
import { loadingView } from '../../src/slack/runtime/open-modal.js';
import { withEnvironment } from '../../src/slack/ui/messages.js';
import { pageAssets } from '../../src/workbench/page/assets.js';
import type { WorkbenchMessage, WorkbenchModal, WorkbenchState } from '../../src/workbench/protocol.js';
import {
  browserAvailable,
  closeContexts,
  contains,
  eventually,
  hidden,
  newPage,
  screenshot,
  shown,
  textOf,
  workerBrowser,
} from '../support/browser.js';

const NOW = new Date('2026-11-23T09:00:00.000Z');
const TS = (minute: number) => `${Math.floor(NOW.getTime() / 1000) + minute * 60}.000100`;

const request = {
  id: 'AR-7Q2M9K4D1X',
  kind: 'redeem',
  environment: 'sandbox',
  amount: '250000',
  payload: { amount: '250000', bankCode: '058', accountNumber: '0123456789' },
  display: { bankName: 'Guaranty Trust Bank', accountName: 'ADAEZE & SONS LTD' },
  purpose: 'Refund to customer',
  requester: 'U0ADA',
  approvals: [],
  requiredApprovals: 1,
  state: 'pending',
  createdAt: NOW.toISOString(),
  expiresAt: new Date(NOW.getTime() + 24 * 3_600_000).toISOString(),
  round: 0,
  history: [{ at: NOW.toISOString(), state: 'pending', action: 'filed', actor: 'U0ADA' }],
} as unknown as ApprovalRequest;

const mrkdwnShowcase =
  '*bold* _italic_ ~struck~ `code` <https://example.com/docs|the docs> (<@U0BOLA>) <#C0ALERTS> <!here> ' +
  'A &amp; B &lt;ok&gt; :white_check_mark: snake_case_word 2*3*4\n' +
  '```line one\n  line two```\n' +
  '&gt; quoted line\n' +
  '- first item\n- second item\n' +
  '<javascript:alert(1)|not a link>';

/** Link labels that read as an address: shown when they are the target, replaced by it when not. */
const links = [
  '<https://evil.example|https://bank.example>',
  '<https://evil.example/login|www.bank.example/login>',
  '<https://evil.example|ada@bank.example>',
  '<https://bank.example|bank.example>',
  '<mailto:ada@bank.example|ada@bank.example>',
  '<https://example.com/tx/1|View on explorer>',
  '<https://example.com/tx/2|Step 2: check>',
  '<https://evil.example|mailto:ada@bank.example>',
].join(' · ');

const hostile =
  'Name: &lt;img src=x onerror="window.__injected=1"&gt; and <https://x.example|&lt;b&gt;label&lt;/b&gt;>';

function message(channel: string, minute: number, body: Partial<WorkbenchMessage>): WorkbenchMessage {
  return { channel, ts: TS(minute), bot: true, text: '', ...body };
}

const radioModal: WorkbenchModal = {
  id: 'V0RADIO',
  hash: 'r1',
  view: {
    type: 'modal',
    title: { type: 'plain_text', text: 'Pick one' },
    submit: { type: 'plain_text', text: 'Save' },
    blocks: [
      {
        type: 'input',
        block_id: 'choice',
        label: { type: 'plain_text', text: 'Speed' },
        element: {
          type: 'radio_buttons',
          action_id: 'choice',
          options: [
            { text: { type: 'plain_text', text: 'Fast' }, value: 'fast' },
            { text: { type: 'plain_text', text: 'Careful' }, value: 'careful' },
          ],
        },
      },
    ],
  },
};

const confirmMessage = message('D0BOT', 0, {
  text: 'Confirm test',
  blocks: [
    {
      type: 'actions',
      block_id: 'danger.block',
      elements: [
        {
          type: 'button',
          action_id: 'danger.go',
          style: 'danger',
          value: 'go',
          text: { type: 'plain_text', text: 'Delete everything' },
          confirm: {
            title: { type: 'plain_text', text: 'Really delete?' },
            text: { type: 'mrkdwn', text: 'This *cannot* be undone.' },
            confirm: { type: 'plain_text', text: 'Delete' },
            deny: { type: 'plain_text', text: 'Keep' },
          },
        },
      ],
    },
    { type: 'divider' },
    { type: 'image', image_url: 'https://example.invalid/chart.png', alt_text: 'Balance chart' },
  ],
});

function fixtureState(): WorkbenchState {
  const approval = approvalMessage(request, NOW);
  const help = withEnvironment(helpMessage(SUBCOMMANDS), 'sandbox');
  const balance = withEnvironment(
    balanceMessage([{ asset_code: 'cngn', balance: '1250000' }] as never, NOW, NOW),
    'sandbox',
  );
  return {
    environment: 'SANDBOX',
    sandbox: true,
    passkeysRequired: false,
    bot: { id: 'U0BOT', name: 'cngn-desk' },
    users: [
      { id: 'U0ADA', name: 'Ada', role: 'treasury operations, requester' },
      { id: 'U0BOLA', name: 'Bola', role: 'approver' },
      { id: 'U0CHIDI', name: 'Chidi', role: 'approver' },
      { id: 'U0DAYO', name: 'Dayo', role: 'reads only, not an approver' },
    ],
    channels: [
      { id: 'C0TREASURY', name: 'treasury', kind: 'channel' },
      { id: 'C0APPROVALS', name: 'approvals', kind: 'channel' },
      { id: 'C0ALERTS', name: 'alerts', kind: 'channel' },
      { id: 'D0BOT', name: 'cngn-desk', kind: 'dm' },
    ],
    messages: {
      C0TREASURY: [
        message('C0TREASURY', 0, { ...help, visibleTo: 'U0ADA' }),
        message('C0TREASURY', 1, { ...balance, visibleTo: 'U0ADA' }),
        message('C0TREASURY', 2, { bot: false, user: 'U0ADA', text: mrkdwnShowcase }),
        message('C0TREASURY', 3, { bot: false, user: 'U0BOLA', text: hostile }),
        message('C0TREASURY', 4, { bot: false, user: 'U0CHIDI', text: links }),
      ],
      C0APPROVALS: [
        message('C0APPROVALS', 0, { ...approval, edited: true, reply_count: 2 }),
        message('C0APPROVALS', 1, { text: 'Filed by <@U0ADA>', thread_ts: TS(0) }),
        message('C0APPROVALS', 2, { text: 'Approved by <@U0BOLA>', thread_ts: TS(0) }),
      ],
      C0ALERTS: [],
      D0BOT: [confirmMessage],
    },
    modals: [],
    home: undefined,
    version: 1,
  };
}

interface Posted {
  path: string;
  body: Record<string, unknown>;
}

/** Serves the real page bundle and a state the test sets; records what the page posts. */
class StubServer {
  state = fixtureState();
  posted: Posted[] = [];
  stateReads: string[] = [];
  /** When set, /suggest answers wait here until the test answers them (per typed value). */
  holdSuggest = false;
  heldSuggest: Array<{ value: string; answer: (options: Array<{ text: string; value: string }>) => void }> =
    [];
  /**
   * The options the test gave per typed value: an ask for it that comes later (on a busy machine the
   * page may ask twice for one text, and it waits only for its last ask) is answered the same at once.
   */
  answeredSuggest = new Map<string, Array<{ text: string; value: string }>>();

  /** Answers every held ask for `value`, and any that comes later, with `options`. */
  answerSuggest(value: string, options: Array<{ text: string; value: string }>): void {
    this.answeredSuggest.set(value, options);
    const asks = this.heldSuggest.filter((h) => h.value === value);
    this.heldSuggest = this.heldSuggest.filter((h) => h.value !== value);
    for (const ask of asks) ask.answer(options);
  }
  private streams = new Set<ServerResponse>();
  private constructor(private server: Server) {}

  static async start(): Promise<StubServer> {
    const assets = await pageAssets();
    let stub: StubServer | undefined;
    const server = createServer((req, res) => void stub?.handle(req, res, assets));
    stub = new StubServer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return stub;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(
    req: IncomingMessage,
    res: ServerResponse,
    assets: { html: string; js: string; css: string },
  ) {
    const url = new URL(req.url ?? '/', this.url);
    const send = (type: string, body: string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    if (url.pathname === '/') return send('text/html; charset=utf-8', assets.html);
    if (url.pathname === '/workbench/app.js') return send('text/javascript; charset=utf-8', assets.js);
    if (url.pathname === '/workbench/app.css') return send('text/css; charset=utf-8', assets.css);
    if (url.pathname === '/workbench/api/state') {
      this.stateReads.push(url.searchParams.get('user') ?? '');
      return send('application/json', JSON.stringify(this.state));
    }
    if (url.pathname === '/workbench/api/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(`data: ${JSON.stringify({ version: this.state.version })}\n\n`);
      this.streams.add(res);
      req.on('close', () => this.streams.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = url.pathname.replace('/workbench/api', '');
    this.posted.push({ path, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') });
    if (path === '/suggest' && this.holdSuggest) {
      const value = String(this.posted.at(-1)?.body.value ?? '');
      const given = this.answeredSuggest.get(value);
      if (given) return send('application/json', JSON.stringify({ options: given }));
      this.heldSuggest.push({
        value,
        answer: (options) => send('application/json', JSON.stringify({ options })),
      });
      return;
    }
    if (path === '/sandbox/passkeys') {
      this.state.passkeysRequired = this.posted.at(-1)?.body.required === true;
      return send(
        'application/json',
        JSON.stringify({ ok: true, passkeysRequired: this.state.passkeysRequired }),
      );
    }
    if (path === '/suggest') {
      return send(
        'application/json',
        JSON.stringify({ options: [{ text: 'Access Bank', value: '044|Access Bank' }] }),
      );
    }
    return send('application/json', JSON.stringify({ ok: true }));
  }

  /** Changes the state and announces the new version, as the server does on every change. */
  change(edit: (state: WorkbenchState) => void): void {
    edit(this.state);
    this.state.version += 1;
    for (const stream of this.streams)
      stream.write(`data: ${JSON.stringify({ version: this.state.version })}\n\n`);
  }

  lastPost(path: string): Posted | undefined {
    return this.posted.filter((p) => p.path === path).at(-1);
  }

  async stop(): Promise<void> {
    for (const stream of this.streams) stream.end();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const run = browserAvailable();

/**
 * For the whole file (its tests are steps on one page): `stub`, the stand-in server, and `page`, one
 * page of the worker's Chromium on it, showing #treasury. The page's context closes before the stub.
 */
const it = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('stub', { scope: 'file' }, async ({}, { onCleanup }) => {
    const stub = await StubServer.start();
    onCleanup(() => stub.stop());
    return stub;
  })
  .extend('page', { scope: 'file' }, async ({ stub }, { onCleanup }) => {
    const browser = await workerBrowser();
    onCleanup(() => closeContexts(browser));
    const page = await newPage(browser);
    await page.goto(stub.url);
    await page.getByRole('log', { name: 'Messages in #treasury' }).waitFor();
    return page;
  });

const log = (page: Page) => page.getByRole('log');

describe.skipIf(!run)('workbench page in Chromium (fixture state)', () => {
  it('shows the banner on every screen and the four people to act as', async ({ page, stub }) => {
    await contains(page.getByRole('banner'), 'LOCAL WORKBENCH — not Slack · SANDBOX');
    const acting = page.getByRole('combobox', { name: 'Acting as' });
    expect(await acting.locator('option').allTextContents()).toEqual([
      'Ada — treasury operations, requester',
      'Bola — approver',
      'Chidi — approver',
      'Dayo — reads only, not an approver',
    ]);
    // The select is too narrow for the longest role: it is written out under it.
    await contains(page.locator('.acting-role'), 'treasury operations, requester');
    await acting.selectOption({ label: 'Bola — approver' });
    await eventually(() => stub.stateReads.at(-1)).toBe('U0BOLA');
    await acting.selectOption({ label: 'Ada — treasury operations, requester' });
    await eventually(() => stub.stateReads.at(-1)).toBe('U0ADA');
    await screenshot(page, 'render-treasury');
  });

  it('renders mrkdwn as Slack does: marks, code, quotes, lists, links, mentions, entities, emoji', async ({
    page,
  }) => {
    const showcase = log(page).getByRole('article', { name: 'Ada' });
    await shown(showcase.locator('strong', { hasText: 'bold' }));
    await shown(showcase.locator('em', { hasText: 'italic' }));
    await shown(showcase.locator('s', { hasText: 'struck' }));
    await shown(showcase.locator('code', { hasText: /^code$/ }));
    await eventually(() => showcase.getByRole('link', { name: 'the docs' }).getAttribute('href')).toBe(
      'https://example.com/docs',
    );
    await contains(showcase, '@Bola');
    await contains(showcase, '#alerts');
    await contains(showcase, '@here');
    await contains(showcase, 'A & B <ok> ✅ snake_case_word 2*3*4');
    await eventually(() => textOf(showcase.locator('pre'))).toBe('line one\n  line two');
    await eventually(() => textOf(showcase.locator('blockquote'))).toBe('quoted line');
    expect(await showcase.getByRole('listitem').allTextContents()).toEqual(['first item', 'second item']);
    await eventually(() => showcase.getByRole('link', { name: 'not a link' }).count()).toBe(0);
    await contains(showcase, 'not a link');
  });

  it('sets a mention tight between the characters beside it: "(@Bola)", not "(@Bola )"', async ({ page }) => {
    const mention = log(page).getByRole('article', { name: 'Ada' }).locator('.mention', { hasText: '@Bola' });
    await shown(mention);
    // Where the name's own letters end and the parentheses' begin, as laid out on screen.
    const gaps = await mention.evaluate((span) => {
      const box = (node: Node, start: number, end: number) => {
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, end);
        return range.getBoundingClientRect();
      };
      const name = span.firstChild as Text;
      const before = span.previousSibling as Text;
      const after = span.nextSibling as Text;
      const open = box(before, before.length - 1, before.length);
      const close = box(after, 0, 1);
      const letters = box(name, 0, name.length);
      return { left: letters.left - open.right, right: close.left - letters.right };
    });
    expect(gaps.left).toBeLessThan(0.5);
    expect(gaps.right).toBeLessThan(0.5);
  });

  it('never turns text from outside into HTML', async ({ page }) => {
    const message = log(page).getByRole('article', { name: 'Bola' });
    await contains(message, 'Name: <img src=x onerror="window.__injected=1"> and');
    await eventually(() => message.locator('img, b').count()).toBe(0);
    await shown(message.getByRole('link', { name: '<b>label</b>' }));
    expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
  });

  it('labels a link with its real target when its text names another address, as Slack does', async ({
    page,
  }) => {
    const message = log(page).getByRole('article', { name: 'Chidi' });
    await shown(message.getByRole('link').first());
    const drawn = await message
      .getByRole('link')
      .evaluateAll((all) => all.map((a) => [a.textContent, a.getAttribute('href')]));
    expect(drawn).toEqual([
      ['https://evil.example', 'https://evil.example'],
      ['https://evil.example/login', 'https://evil.example/login'],
      ['https://evil.example', 'https://evil.example'],
      ['bank.example', 'https://bank.example'],
      ['ada@bank.example', 'mailto:ada@bank.example'],
      ['View on explorer', 'https://example.com/tx/1'],
      ['Step 2: check', 'https://example.com/tx/2'],
      ['https://evil.example', 'https://evil.example'],
    ]);
  });

  it('marks the bot\'s private answers "Only visible to you" and draws their Block Kit', async ({ page }) => {
    const privately = log(page).getByRole('article', { name: 'cngn-desk (only visible to you)' });
    await eventually(() => privately.count()).toBe(2);
    await contains(privately.first(), 'Only visible to you');
    await shown(privately.first().locator('code', { hasText: '/cngn balance' }).first());
    // The second follows the first (folded under it) and is marked too.
    await contains(privately.nth(1), 'Only visible to you');
    await contains(privately.nth(1), '₦1,250,000.00');
    await contains(privately.nth(1), '🧪 SANDBOX');
  });

  it('shows an approval request with its fields, styled buttons, "(edited)" and a thread that opens', async ({
    page,
  }) => {
    await page.getByRole('button', { name: 'approvals' }).click();
    const request = log(page).getByRole('article').first();
    await shown(request.getByRole('heading', { name: 'Redemption to a bank account · SANDBOX' }));
    await contains(request, 'ADAEZE & SONS LTD');
    await contains(request, 'Requested by@Ada');
    await contains(request, '(edited)');
    await eventually(() => request.getByRole('button', { name: 'Approve' }).getAttribute('class')).toMatch(
      /primary/,
    );
    await eventually(() => request.getByRole('button', { name: 'Reject' }).getAttribute('class')).toMatch(
      /danger/,
    );
    await request.getByRole('button', { name: '2 replies' }).click();
    const thread = page.getByRole('complementary', { name: 'Thread' });
    await contains(thread, 'Approved by @Bola');
    await screenshot(page, 'render-approval-thread');
    await thread.getByRole('button', { name: 'Close thread' }).click();
    await hidden(thread);
  });

  it('sends a click as a block action of that message', async ({ page, stub }) => {
    await log(page).getByRole('button', { name: 'Approve' }).click();
    await eventually(() => stub.lastPost('/action')?.body).toEqual({
      user: 'U0ADA',
      container: { type: 'message', channel: 'C0APPROVALS', ts: TS(0) },
      block_id: 'approval.actions',
      action_id: 'approval.approve',
      value: 'AR-7Q2M9K4D1X:0',
    });
  });

  it("asks a button's confirm question first and sends nothing when denied", async ({ page, stub }) => {
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    await eventually(() => log(page).getByRole('img', { name: 'Balance chart' }).count()).toBe(1);
    const before = stub.posted.length;
    await log(page).getByRole('button', { name: 'Delete everything' }).click();
    const confirm = page.getByRole('dialog', { name: 'Really delete?' });
    await contains(confirm, 'This cannot be undone.');
    await confirm.getByRole('button', { name: 'Keep' }).click();
    await hidden(confirm);
    expect(stub.posted.length).toBe(before);
    await log(page).getByRole('button', { name: 'Delete everything' }).click();
    await page
      .getByRole('dialog', { name: 'Really delete?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await eventually(() => stub.lastPost('/action')?.body.action_id).toBe('danger.go');
  });

  it('shows files the bot shared as cards with the name, size and a Download link', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.messages.D0BOT?.push(
        message('D0BOT', 5, {
          text: 'Audit log export, 12 entries · SANDBOX',
          files: [
            {
              id: 'F0CSV',
              name: 'cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv',
              title: 'Audit log (CSV)',
              size: 2_345,
              url: 'http://127.0.0.1:9/files/F0CSV/cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv',
            },
            {
              id: 'F0JSONL',
              name: 'cngn-audit.jsonl',
              title: 'Audit log (JSON Lines)',
              size: 812,
              url: 'javascript:alert(1)',
            },
          ],
        }),
      );
    });
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    const csv = log(page).locator('[data-file="F0CSV"]');
    await contains(csv, 'cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv');
    await contains(csv, '2.3 KB CSV');
    await eventually(() => csv.getByRole('link', { name: 'Download' }).getAttribute('href')).toBe(
      'http://127.0.0.1:9/files/F0CSV/cngn-audit-sandbox-2026-11-01-to-2026-11-23.csv',
    );
    const jsonl = log(page).locator('[data-file="F0JSONL"]');
    await contains(jsonl, '812 B JSONL');
    // A link that is not http(s) is not offered.
    expect(await jsonl.getByRole('link').count()).toBe(0);
    await screenshot(page, 'render-files');
  });

  it("shows a delegate's request DM naming in whose place they approve, and until when", async ({
    page,
    stub,
  }) => {
    const until = '2026-11-30T23:00:00.000Z';
    const dm = approvalDm(request, NOW, 'U0DAYO', { delegator: 'U0CHIDI', until });
    stub.change((s) => {
      s.messages.D0BOT?.push(message('D0BOT', 7, dm));
    });
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    const copy = log(page).locator('article', { hasText: 'asks for your approval' });
    await contains(
      copy,
      `@Ada asks for your approval (you approve in @Chidi's place until ${lagosTime(until)})`,
    );
    await contains(copy, 'AR-7Q2M9K4D1X');
    await copy.scrollIntoViewIfNeeded();
    await screenshot(page, 'render-delegate-dm');
  });

  it('shows a hidden character in a name as a badge, and the request says so in words', async ({
    page,
    stub,
  }) => {
    const disguised = {
      ...request,
      id: 'AR-1B2C3D4E5F',
      display: { ...request.display, accountName: 'ADA OBI \u202eSESIRPRETNE' },
    } as ApprovalRequest;
    stub.change((s) => {
      s.messages.D0BOT?.push(message('D0BOT', 8, approvalMessage(disguised, NOW)));
    });
    await page.getByRole('button', { name: 'cngn-desk' }).click();
    const copy = log(page).locator('article', { hasText: 'AR-1B2C3D4E5F' });
    // Read left to right as sent, never turned around into "ADA OBI ENTERPRISES".
    await contains(copy, 'ADA OBI ⟨U+202E⟩SESIRPRETNE');
    const badge = copy.locator('.hidden-char');
    await eventually(() => textOf(badge)).toBe('⟨U+202E⟩');
    await eventually(() => badge.getAttribute('title')).toBe('A hidden character (U+202E) was here');
    await contains(copy, 'Look twice: the account name contains hidden characters');
    expect(await copy.evaluate((node) => node.textContent?.includes('\u202e'))).toBe(false);
    await copy.scrollIntoViewIfNeeded();
    await screenshot(page, 'render-hidden-characters');
  });

  it('shows "(edited)" of a follow-on message after its text, with no bare meta line', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.messages.D0BOT?.push(message('D0BOT', 6, { text: 'A follow-on, changed since', edited: true }));
    });
    const followOn = log(page).locator('article', { hasText: 'A follow-on, changed since' });
    await contains(followOn, '(edited)');
    await hidden(followOn.locator('.meta'));
    await shown(followOn.locator('.edited'));
  });

  it("opens a button's url only when it is http(s) or mailto, never javascript:", async ({ page, stub }) => {
    await page.evaluate(() => {
      const opened: string[] = [];
      (window as unknown as { __opened: string[] }).__opened = opened;
      window.open = (url?: string | URL) => {
        opened.push(String(url));
        return null;
      };
    });
    const linkButton = (text: string, url: string) => ({
      type: 'button' as const,
      action_id: `link.${text}`,
      url,
      text: { type: 'plain_text' as const, text },
    });
    stub.change((s) => {
      s.messages.D0BOT?.push(
        message('D0BOT', 20, {
          text: 'Links',
          blocks: [
            {
              type: 'actions',
              block_id: 'links',
              elements: [
                linkButton('Bad link', 'javascript:window.__injected=1'),
                linkButton('Good link', 'https://example.com/report'),
              ],
            },
          ],
        }),
      );
    });
    await log(page).getByRole('button', { name: 'Bad link' }).click();
    await eventually(() => stub.lastPost('/action')?.body.action_id).toBe('link.Bad link');
    await log(page).getByRole('button', { name: 'Good link' }).click();
    await eventually(() => stub.lastPost('/action')?.body.action_id).toBe('link.Good link');
    expect(await page.evaluate(() => (window as unknown as { __opened: string[] }).__opened)).toEqual([
      'https://example.com/report',
    ]);
    expect(await page.evaluate(() => (window as { __injected?: number }).__injected)).toBeUndefined();
  });

  // The page is named so that it has loaded (and asked for whatever it asks for) by then.
  it('asks for no /favicon.ico (the icon is inline)', ({ stub, page: _ }) => {
    expect(stub.posted.filter((p) => p.path.includes('favicon'))).toEqual([]);
  });

  it("sends /cngn lines as commands, with the help's subcommands as hints", async ({ page, stub }) => {
    await page.getByRole('button', { name: 'treasury' }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('/cngn ba');
    await contains(page.getByRole('list', { name: 'Command hints' }), '/cngn balance');
    await contains(page.getByRole('list', { name: 'Command hints' }), '/cngn banks [name]');
    await box.fill('/cngn balance');
    await box.press('Enter');
    await eventually(() => stub.lastPost('/command')?.body).toEqual({
      user: 'U0ADA',
      channel: 'C0TREASURY',
      text: '/cngn balance',
    });
    await eventually(() => box.inputValue()).toBe('');
    await box.fill('good morning');
    await box.press('Enter');
    await eventually(() => stub.lastPost('/message')?.body.text).toBe('good morning');
  });

  it('opens the loading modal, fills it in on views.update keeping what was typed, and shows errors inline', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.modals = [{ id: 'V0WD', hash: 'a', view: loadingView('🧪 SANDBOX') }];
    });
    await contains(page.getByRole('dialog', { name: 'One moment' }), 'Loading the form…');
    const form = () =>
      withdrawModal({
        networks: [
          { id: 'net-base', name: 'Base', shortName: 'base' },
          { id: 'net-bsc', name: 'BNB Smart Chain', shortName: 'bsc' },
        ],
        whitelist: [],
        environment: '🧪 SANDBOX',
      });
    stub.change((s) => {
      s.modals = [{ id: 'V0WD', hash: 'b', view: form() }];
    });
    const dialog = page.getByRole('dialog', { name: 'Withdraw cNGN' });
    await dialog.getByLabel('Amount (₦ / cNGN)').fill('1500');
    await dialog.getByLabel('Network').selectOption({ label: 'Base (base)' });
    await dialog.getByLabel('Destination address').fill('0x123');
    await dialog.getByLabel('Save this address for later withdrawals').check();
    await dialog.getByLabel('Purpose', { exact: true }).fill('Supplier payout INV-2231');
    await dialog.getByRole('button', { name: 'Ask for approval' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body).toEqual({
      user: 'U0ADA',
      view_id: 'V0WD',
      values: {
        'withdraw.amount': { 'withdraw.amount': '1500' },
        'withdraw.network': { 'withdraw.network': 'net-base' },
        'withdraw.address': { 'withdraw.address': '0x123' },
        'withdraw.save': { 'withdraw.save': ['save'] },
        'withdraw.purpose': { 'withdraw.purpose': 'Supplier payout INV-2231' },
      },
    });
    stub.change((s) => {
      const top = s.modals[0];
      if (top) top.errors = { 'withdraw.address': 'Not a valid address for Base: 0x and 40 hex digits' };
    });
    await eventually(() => textOf(dialog.getByRole('alert'))).toBe(
      'Not a valid address for Base: 0x and 40 hex digits',
    );
    await eventually(() => dialog.getByLabel('Destination address').getAttribute('aria-invalid')).toBe(
      'true',
    );
    await screenshot(page, 'render-withdraw-error');
    stub.change((s) => {
      s.modals = [{ id: 'V0WD', hash: 'c', view: form() }];
    });
    await eventually(() => dialog.getByLabel('Amount (₦ / cNGN)').inputValue()).toBe('1500');
    await hidden(dialog.getByRole('alert'));
  });

  it('stacks a pushed view on top, with radio buttons, and closes it', async ({ page, stub }) => {
    stub.change((s) => {
      s.modals = [...s.modals, radioModal];
    });
    const dialog = page.getByRole('dialog', { name: 'Pick one' });
    await dialog.getByLabel('Careful').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body.values).toEqual({
      choice: { choice: 'careful' },
    });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await eventually(() => stub.lastPost('/view/close')?.body).toEqual({ user: 'U0ADA', view_id: 'V0RADIO' });
    stub.change((s) => {
      s.modals = s.modals.slice(0, 1);
    });
    await shown(page.getByRole('dialog', { name: 'Withdraw cNGN' }));
    stub.change((s) => {
      s.modals = [];
    });
    await eventually(() => page.getByRole('dialog').count()).toBe(0);
  });

  it("asks the bot for an external select's options as the person types", async ({ page, stub }) => {
    stub.change((s) => {
      s.modals = [{ id: 'V0RD', hash: 'a', view: redeemModal({ environment: '🧪 SANDBOX' }) }];
    });
    const dialog = page.getByRole('dialog', { name: 'Redeem to a bank' });
    await dialog.getByRole('combobox', { name: 'Bank' }).fill('acc');
    await dialog.getByRole('option', { name: 'Access Bank' }).click();
    expect(stub.lastPost('/suggest')?.body).toMatchObject({
      view_id: 'V0RD',
      block_id: 'redeem.bank',
      action_id: 'redeem.bank',
    });
    await dialog.getByLabel('Amount (₦, at least 1)').fill('5000');
    await dialog.getByLabel('Account number (10 digits)').fill('0123456789');
    await dialog.getByLabel('Purpose', { exact: true }).fill('Refund to customer');
    await dialog.getByRole('button', { name: 'Ask for approval' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body.values).toEqual({
      'redeem.amount': { 'redeem.amount': '5000' },
      'redeem.bank': { 'redeem.bank': '044|Access Bank' },
      'redeem.account': { 'redeem.account': '0123456789' },
      'redeem.purpose': { 'redeem.purpose': 'Refund to customer' },
    });
    stub.change((s) => {
      s.modals = [];
    });
  });

  it('never offers options for older text: typing clears them and shows "Searching…" until the answer for the text comes', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.modals = [{ id: 'V0RD2', hash: 'a', view: redeemModal({ environment: '🧪 SANDBOX' }) }];
    });
    stub.holdSuggest = true;
    const dialog = page.getByRole('dialog', { name: 'Redeem to a bank' });
    const bank = dialog.getByRole('combobox', { name: 'Bank' });
    const held = (value: string) =>
      eventually(() => stub.heldSuggest.find((h) => h.value === value)).toBeTruthy();
    const answer = (value: string, options: Array<{ text: string; value: string }>) =>
      stub.answerSuggest(value, options);
    await bank.click();
    await bank.fill('acc');
    await held('acc');
    answer('acc', [{ text: 'Access Bank', value: '044|Access Bank' }]);
    await shown(dialog.getByRole('option', { name: 'Access Bank' }));
    // The text changes: Access Bank must not stay clickable while the answer for "zen" is awaited.
    await bank.fill('zen');
    await eventually(() => dialog.getByRole('option').count()).toBe(0);
    await contains(dialog.getByRole('listbox'), 'Searching…');
    await held('zen');
    answer('zen', [{ text: 'Zenith Bank', value: '057|Zenith Bank' }]);
    await dialog.getByRole('option', { name: 'Zenith Bank' }).click();
    await dialog.getByLabel('Amount (₦, at least 1)').fill('5000');
    await dialog.getByLabel('Account number (10 digits)').fill('0123456789');
    await dialog.getByLabel('Purpose', { exact: true }).fill('Refund to customer');
    await screenshot(page, 'render-bank-typeahead');
    await dialog.getByRole('button', { name: 'Ask for approval' }).click();
    await eventually(() => stub.lastPost('/view/submit')?.body.values).toMatchObject({
      'redeem.bank': { 'redeem.bank': '057|Zenith Bank' },
    });
    stub.holdSuggest = false;
    stub.answeredSuggest.clear();
    stub.change((s) => {
      s.modals = [];
    });
  });

  it('opens App Home (app_home_opened) and draws the published view, whose buttons act from home', async ({
    page,
    stub,
  }) => {
    stub.change((s) => {
      s.home = {
        type: 'home',
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: 'Waiting for you' } },
          {
            type: 'section',
            block_id: 'home.request',
            text: { type: 'mrkdwn', text: '*AR-7Q2M9K4D1X* · Redemption · ₦250,000.00' },
            accessory: {
              type: 'button',
              action_id: 'approval.approve',
              style: 'primary',
              value: 'AR-7Q2M9K4D1X:0',
              text: { type: 'plain_text', text: 'Approve' },
            },
          },
        ],
      };
    });
    await page.getByRole('navigation').getByRole('button', { name: 'App Home' }).click();
    await eventually(() => stub.lastPost('/home')?.body).toEqual({ user: 'U0ADA' });
    const home = page.getByRole('log', { name: 'App Home' });
    await shown(home.getByRole('heading', { name: 'Waiting for you' }));
    await eventually(() => home.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    await home.getByRole('button', { name: 'Approve' }).click();
    await eventually(() => stub.lastPost('/action')?.body).toEqual({
      user: 'U0ADA',
      container: { type: 'home' },
      block_id: 'home.request',
      action_id: 'approval.approve',
      value: 'AR-7Q2M9K4D1X:0',
    });
    await page.getByRole('navigation').getByRole('button', { name: 'treasury' }).click();
  });

  it('drives the sandbox from its panel', async ({ page, stub }) => {
    const panel = page.getByRole('region', { name: '🧪 Sandbox' });
    await panel.getByRole('button', { name: 'Settle pending' }).click();
    await eventually(() => stub.lastPost('/sandbox/settle')?.body).toEqual({});
    await panel.getByRole('button', { name: 'Make the next redemption fail' }).click();
    await eventually(() => stub.lastPost('/sandbox/fail-next-redemption')).toBeDefined();
    await eventually(() => textOf(panel.getByRole('status'))).toBe(
      'The next redemption will fail at the bank.',
    );
    const passkeys = panel.getByRole('switch', { name: 'Require passkeys' });
    expect(await passkeys.isChecked()).toBe(false);
    await passkeys.check();
    await eventually(() => stub.lastPost('/sandbox/passkeys')?.body).toEqual({ required: true });
    await eventually(() => textOf(panel.getByRole('status'))).toBe('Switched on.');
    expect(await passkeys.isChecked()).toBe(true);
    await contains(panel, 'Passkeys required: every approval is signed on the signing page.');
  });
});
