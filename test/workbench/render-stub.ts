// The stand-in for the workbench server that the render tests' page talks to: the real page bundle,
// a state built by the bot's own Block Kit builders (every kind of message the bot sends), and what
// the page posts back. One stub and one page of the worker's Chromium per test file.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { test as base } from 'vitest';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { approvalMessage } from '../../src/slack/approvals/blocks/message.js';
import { helpMessage } from '../../src/slack/commands/help.js';
import { SUBCOMMANDS } from '../../src/slack/commands/registry.js';
import { balanceMessage } from '../../src/slack/reads/blocks.js';
import { withEnvironment } from '../../src/slack/ui/messages.js';
import { pageAssets } from '../../src/workbench/page/assets.js';
import type { WorkbenchMessage, WorkbenchModal, WorkbenchState } from '../../src/workbench/protocol.js';
import { browserAvailable, closeContexts, newPage, workerBrowser } from '../support/browser.js';

export const NOW = new Date('2026-11-23T09:00:00.000Z');
export const TS = (minute: number) => `${Math.floor(NOW.getTime() / 1000) + minute * 60}.000100`;

export const request = {
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

export function message(channel: string, minute: number, body: Partial<WorkbenchMessage>): WorkbenchMessage {
  return { channel, ts: TS(minute), bot: true, text: '', ...body };
}

export const radioModal: WorkbenchModal = {
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

export const run = browserAvailable();

/**
 * For the whole file (its tests are steps on one page): `stub`, the stand-in server, and `page`, one
 * page of the worker's Chromium on it, showing #treasury. The page's context closes before the stub.
 */
export const it = base
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

export const log = (page: Page) => page.getByRole('log');
