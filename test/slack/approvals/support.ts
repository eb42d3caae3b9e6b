// The real bot (startBot: Bolt over HTTP, router, approvals, webhooks) with the real client against the
// embedded sandbox, a store we choose, and the fake Slack Web API; plus helpers to click and submit.
import type { Roles } from '../../../src/access/roles.js';
import type { ApprovalEngine } from '../../../src/approvals/index.js';
import type { CngnClient } from '../../../src/cngn/client.js';
import type { AdminConfig, Config } from '../../../src/config.js';
import { type Logger, silentLogger } from '../../../src/log.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/index.js';
import { createStore, type Store } from '../../../src/store/index.js';
import type { Webhooks } from '../../../src/webhooks/index.js';
import type { Approvals } from '../../../src/wiring/approvals.js';
import { type BotOptions, startBot } from '../../../src/wiring/bot.js';
import { FakeSlack, openedViewId } from '../../support/fake-slack.js';
import type { FakeSocketMode } from '../../support/fake-socket-mode.js';
import { freePort } from '../../support/free-port.js';
import { SIGNING_SECRET, testConfig } from '../../support/harness.js';
import { approveInChannel, type OpenedReview, type Reviewed, reviewInChannel } from '../../support/review.js';
import {
  blockAction,
  newTriggerId,
  type SlackSender,
  slashCommand,
  textValue,
  viewSubmission,
  withdrawValues,
} from '../../support/slack-requests.js';

export { freePort };

export const APPROVALS_CHANNEL = 'CAPPROVALS';
export const REQUESTER = 'UREQ';
export const APPROVER_A = 'UAPPROVERA';
export const APPROVER_B = 'UAPPROVERB';
export const OUTSIDER = 'UOUTSIDER';
export const DEST = '0x52908400098527886E0F7030069857D2E4169EE7';

export interface ApprovalAppOptions {
  sandbox?: Sandbox;
  store?: Store;
  slack?: FakeSlack;
  tiers?: string;
  approvers?: string[];
  approverGroup?: string;
  ttlMs?: number;
  /** CNGN_LIMIT_WINDOW (default 24 h) */
  limitWindowMs?: number;
  /** CNGN_DAILY_LIMIT as a canonical decimal (default none) */
  dailyLimit?: string;
  now?: () => Date;
  /** `self`: the app's own address, so the sandbox's bridge callbacks reach its callback route. */
  publicUrl?: string | 'self';
  /** Mount the webhooks feature too, with approvals subscribed, and point the sandbox at it. */
  withWebhooks?: boolean;
  /** CNGN_AUDIT_RETENTION */
  auditRetentionMs?: number;
  /** Where the bot's log lines go (default: nowhere). */
  logger?: Logger;
  /** CNGN_APPROVAL_NOTIFY (default both) */
  notify?: 'dm' | 'channel' | 'both';
  /** App Home's per-person debounce (default: short, for tests). */
  homeDebounceMs?: number;
  /** CNGN_START_FROZEN */
  startFrozen?: boolean;
  /** ADMIN_PORT / ADMIN_HOST (default: any free port on loopback). */
  admin?: AdminConfig;
  /** Record the policy in the audit chain at start, as a real start does (default off: tests count entries and posts). */
  recordPolicy?: boolean;
  /** Who holds which role (default: the bot's own, from its settings). */
  roles?: Roles;
  /** More settings, on top of the ones above (the audit archive and key, STORE_URL for where its state goes). */
  config?: Partial<Omit<Config, 'slack'>>;
  /** More HTTP routes on the bot's server. */
  routes?: BotOptions['routes'];
  /** How long a start that failed waits for its stop (default: the bot's own, 15 s). */
  failedStartStopMs?: number;
  /** Slack over Socket Mode through this end (what apps.connections.open hands out), not over HTTP. */
  socketMode?: FakeSocketMode;
}

/** A port nothing listens on now, for a bot whose address a test needs before it has started. */
/** The admin listener's URL: the harness always opens it (on any free port unless told one). */
export function adminUrlOf(bot: { adminUrl: string | undefined }): string {
  if (!bot.adminUrl) throw new Error('the bot was started without its admin listener');
  return bot.adminUrl;
}

export interface ApprovalApp {
  sandbox: Sandbox;
  store: Store;
  slack: FakeSlack;
  engine: ApprovalEngine;
  /** The approvals feature as wired (presenter, DMs, App Home), when started by startApprovalApp. */
  approvals?: Approvals;
  webhooks?: Webhooks;
  client: CngnClient;
  sender: SlackSender;
  baseUrl: string;
  /** The admin listener's `http://host:port`: the probes. */
  adminUrl: string;
  /** The admin listener's `http://host:port/metrics`. */
  metricsUrl: string;
  stop(): Promise<void>;
}

export async function startApprovalApp(options: ApprovalAppOptions = {}): Promise<ApprovalApp> {
  const sandbox = options.sandbox ?? (await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false }));
  const store = options.store ?? (await createStore('memory://'));
  const slack = options.slack ?? (await FakeSlack.start());
  // Port 0 unless the bot must know its own URL first: a port probed free can be taken by another
  // worker's listener before the bot binds it (EADDRINUSE), so that case is tried again on a new one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startApprovalAppOn(options.publicUrl === 'self' ? await freePort() : 0, options, {
        sandbox,
        store,
        slack,
      });
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'EADDRINUSE' || attempt >= 5) throw error;
    }
  }
}

async function startApprovalAppOn(
  port: number,
  options: ApprovalAppOptions,
  { sandbox, store, slack }: { sandbox: Sandbox; store: Store; slack: FakeSlack },
): Promise<ApprovalApp> {
  const publicUrl = options.publicUrl === 'self' ? `http://127.0.0.1:${port}` : options.publicUrl;
  // The whole bot as start-up builds it (router, approvals, webhooks, routes), on our sandbox and store.
  const config = testConfig(slack.apiUrl, {
    port,
    approvers: options.approvers ?? [APPROVER_A, APPROVER_B, REQUESTER],
    approverGroup: options.approverGroup,
    approvalTiers: options.tiers ?? '0:1,1000000:2',
    approvalTtlMs: options.ttlMs ?? 24 * 3_600_000,
    ...(options.limitWindowMs ? { limitWindowMs: options.limitWindowMs } : {}),
    ...(options.dailyLimit ? { dailyLimit: options.dailyLimit } : {}),
    auditRetentionMs: options.auditRetentionMs,
    publicUrl,
    webhookSecret: sandbox.webhookSecret,
    ...(options.notify ? { approvalNotify: options.notify } : {}),
    ...(options.startFrozen ? { startFrozen: true } : {}),
    ...(options.admin ? { admin: options.admin } : {}),
    ...options.config,
  });
  if (options.socketMode) {
    const { url } = options.socketMode;
    slack.on('apps.connections.open', () => ({ status: 200, body: { ok: true, url } }));
    config.slack = { ...config.slack, signingSecret: undefined, appToken: 'xapp-test', mode: 'socket' };
  }
  const bot = await startBot({
    config,
    logger: options.logger ?? silentLogger,
    store,
    sandbox,
    ...(options.now ? { now: options.now } : {}),
    clientTimeouts: { headersMs: 2_000, bodyMs: 2_000 },
    homeDebounceMs: options.homeDebounceMs ?? 20,
    recordPolicy: options.recordPolicy ?? false,
    ...(options.roles ? { roles: options.roles } : {}),
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.failedStartStopMs !== undefined ? { failedStartStopMs: options.failedStartStopMs } : {}),
  });
  if (!bot.approvals) throw new Error('approvals are not wired');
  const engine = bot.approvals.engine;
  if (options.withWebhooks) sandbox.setWebhookUrl(`${bot.url}/webhooks/cngn`);
  return {
    sandbox,
    store,
    slack,
    engine,
    approvals: bot.approvals,
    webhooks: bot.webhooks,
    client: bot.client,
    sender: { baseUrl: bot.url, signingSecret: SIGNING_SECRET },
    baseUrl: bot.url,
    adminUrl: adminUrlOf(bot),
    metricsUrl: `${adminUrlOf(bot)}/metrics`,
    stop: async () => {
      await bot.stop();
      if (!options.slack) await slack.stop();
      if (!options.sandbox) await sandbox.stop();
      if (!options.store) await store.close();
    },
  };
}

export function click(app: ApprovalApp, actionId: string, requestId: string, userId: string) {
  return blockAction(app.sender, {
    actionId,
    value: requestId,
    userId,
    channelId: APPROVALS_CHANNEL,
    messageTs: '1.0',
  });
}

/**
 * Approve as a person does: click Approve in the approvals channel, which opens the review modal, and
 * submit it. A click the bot refuses opens nothing: its private answer is returned (`told`).
 */
export function approve(app: ApprovalApp, requestId: string, userId: string): Promise<Reviewed> {
  return approveInChannel(app.sender, app.slack, requestId, userId, APPROVALS_CHANNEL);
}

/** The reason modal Reject opened, with the id Slack gave it (its submission carries it back). */
export interface RejectView {
  id: string;
  callback_id: string;
  private_metadata: string;
}

/** Click Reject in the approvals channel as `userId` and return the reason modal it opened. */
export async function openReject(app: ApprovalApp, requestId: string, userId: string): Promise<RejectView> {
  const triggerId = newTriggerId();
  await blockAction(app.sender, {
    actionId: 'approval.reject',
    value: requestId,
    userId,
    channelId: APPROVALS_CHANNEL,
    messageTs: '1.0',
    triggerId,
  });
  const opened = await app.slack.waitFor('views.open', (c) => c.body.trigger_id === triggerId);
  return { ...(opened.body.view as Omit<RejectView, 'id'>), id: openedViewId(opened) };
}

/** Submit the reason modal as `userId` (its private_metadata as opened, unless given). */
export function submitReject(
  app: ApprovalApp,
  view: RejectView,
  userId: string,
  reason: string,
  privateMetadata = view.private_metadata,
) {
  return viewSubmission(app.sender, {
    callbackId: view.callback_id,
    viewId: view.id,
    privateMetadata,
    userId,
    values: { 'reject.reason': { 'reject.reason': textValue(reason) } },
  });
}

/** Click Approve in the approvals channel and return the review modal it opened (or the private answer). */
export function reviewFor(app: ApprovalApp, requestId: string, userId: string): Promise<OpenedReview> {
  return reviewInChannel(app.sender, app.slack, requestId, userId, APPROVALS_CHANNEL);
}

/** File a withdrawal the way a person does: the slash command, then the modal's submission. */
export async function fileWithdrawal(
  app: ApprovalApp,
  amount: string,
  address = DEST,
  purpose = 'Supplier payout INV-2231',
): Promise<string> {
  const networks = (await app.client.getNetworks()).filter((n) => !n.isDisabled);
  const network = networks[0];
  if (!network) throw new Error('no network');
  const before = app.slack.callsTo('chat.postMessage').length;
  const response = await viewSubmission(app.sender, {
    callbackId: 'withdraw.submit',
    userId: REQUESTER,
    privateMetadata: JSON.stringify({ networks: networks.map((n) => n.id) }),
    values: withdrawValues({ amount, network, address: address, purpose: purpose }),
  });
  if (response.status !== 200) throw new Error(`submission answered ${response.status}`);
  const posted = await app.slack.waitFor(
    'chat.postMessage',
    (c) =>
      c.body.channel === APPROVALS_CHANNEL &&
      !c.body.thread_ts &&
      /AR-[0-9A-F]+/.test(String(c.body.text)) &&
      app.slack.callsTo('chat.postMessage').indexOf(c) >= before,
  );
  const id = /AR-[0-9A-F]+/.exec(String(posted.body.text))?.[0] ?? '';
  // The modal is updated last: once it says where the request waits, the submission is done.
  await app.slack.waitFor('views.update', (c) => JSON.stringify(c.body.view).includes(id));
  return id;
}

/**
 * Wait for a condition that background work will make true (no fixed sleeps in assertions); the
 * deadline is a cap that a machine with every core busy still meets.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what = 'condition',
  withinMs = 45_000,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export { slashCommand };
