// The parts every feature shares, built before any feature and closed after all of them: the store,
// sandbox and client (parts.ts), the roles, and over them the approvals engine and the webhook pipeline.

import {
  DEFAULT_LIMIT_WINDOW_MS,
  DEFAULT_REMINDERS,
  logFreezeChanges,
  logLifecycle,
  parseReminderPoints,
} from '../approvals/index.js';
import type { CngnClient } from '../cngn/client.js';
import { keyId } from '../cngn/credentials.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { BotMetrics } from '../metrics/index.js';
import type { ReportSource } from '../reports/types.js';
import type { Sandbox } from '../sandbox/index.js';
import { observedFetch } from '../slack/runtime/api-calls.js';
import {
  createInFlight,
  createSlackTraffic,
  type InFlight,
  type SlackTraffic,
} from '../slack/runtime/in-flight.js';
import { stopInReverse } from '../slack/runtime/installed.js';
import type { Home } from '../slack/runtime/people.js';
import { SlackAccess } from '../slack/runtime/slack-access.js';
import type { Store } from '../store/index.js';
import { buildInfo } from '../version.js';
import type { Webhooks } from '../webhooks/index.js';
import { RecentAlerts } from '../webhooks/recent.js';
import { type Approvals, auditSealFor, createApprovals } from './approvals.js';
import { type BotOptions, clientOf, openStore, sandboxOf, serviceKeys } from './parts.js';
import { policyOf } from './policy-inputs.js';
import { treasuryReports } from './reports.js';
import { createRoles, type RolesWiring, rolesSetupOf } from './roles.js';
import { createWebhooksForSlack } from './webhooks.js';

/** What the features are built from: the settled options and the shared parts. */
export interface Parts {
  options: BotOptions;
  config: Config;
  logger: Logger;
  now: () => Date;
  store: Store;
  client: CngnClient;
  metrics: BotMetrics;
  sandbox: Sandbox | undefined;
  /** The sandbox was started here: it stops with the bot. */
  ownSandbox: boolean;
  /** The service key requests are filed under (the sandbox's, or CNGN_API_KEY). */
  apiKey: string | undefined;
  /** Every Slack call of the bot passes here, so Slack removing the app stops them all at once. */
  access: SlackAccess | undefined;
  recentAlerts: RecentAlerts;
  roles: RolesWiring;
  approvals: Approvals | undefined;
  webhooks: Webhooks;
  traffic: SlackTraffic;
  /** Answers wait while Slack requests keep arriving, so a burst is acked first. */
  inFlight: InFlight;
  /** Fired when the bot stops: on-demand report builds under way stop reading the service. */
  stopping: AbortController;
  reportSource: ReportSource | undefined;
  /** The workspace auth.test named, once the app exists: /cngn policy names only members who may act. */
  home: Home | undefined;
}

/** The store, sandbox and client; roles, approvals and webhooks over them. */
export async function sharedParts(options: BotOptions): Promise<Parts> {
  const { config, logger } = options;
  const now = options.now ?? (() => new Date());
  const store = await openStore(options);
  const metrics = new BotMetrics({ log: logger, build: buildInfo() });
  const { sandbox, own } = await sandboxOf(options);
  const traffic = createSlackTraffic();
  const inFlight = createInFlight({ traffic });
  const client = clientOf(options, { sandbox, store, metrics, inFlight });
  const { apiKey, privateKey } = serviceKeys(options, sandbox);
  const slackFetch = observedFetch(metrics.slackCall);
  const access = config.slack.botToken ? new SlackAccess(logger, slackFetch) : undefined;
  const recentAlerts = new RecentAlerts(store, now);
  const roles = createRoles({ ...rolesSetupOf(config), log: logger });
  const base = {
    options,
    config,
    logger,
    now,
    store,
    client,
    metrics,
    sandbox,
    apiKey,
    access,
    recentAlerts,
  };
  const approvals = approvalsOf({ ...base, roles });
  const webhooks = webhooksOf({ ...base, approvals }, privateKey);
  const reportSource = options.reportSource ?? (apiKey ? treasuryReports(client, store, apiKey) : undefined);
  return {
    ...base,
    roles,
    approvals,
    webhooks,
    reportSource,
    ownSandbox: own,
    traffic,
    inFlight,
    stopping: new AbortController(),
    home: undefined,
  };
}

type Base = Pick<
  Parts,
  'options' | 'config' | 'logger' | 'now' | 'store' | 'client' | 'metrics' | 'sandbox' | 'apiKey' | 'access'
> &
  Pick<Parts, 'recentAlerts'>;

/** With Slack and CNGN_APPROVALS_CHANNEL: the approvals engine and its Slack side; otherwise undefined. */
function approvalsOf(parts: Base & Pick<Parts, 'roles'>): Approvals | undefined {
  const { config, options, client, logger, metrics } = parts;
  if (!config.slack.botToken || !config.approvalsChannel) return undefined;
  const auditSeal = auditSealFor(config, logger);
  const approvals = createApprovals({
    store: parts.store,
    api: client,
    approvalsChannel: config.approvalsChannel,
    alertsChannel: config.alertsChannel,
    roles: parts.roles.roles,
    tiers: config.approvalTiers,
    ttlMs: config.approvalTtlMs,
    limits: limitsOf(config),
    reminders: remindersOf(config),
    auditRetentionMs: config.auditRetentionMs,
    policySnapshot: options.recordPolicy === false ? undefined : policyOf(config, client.environment),
    auditSeal,
    auditArchive:
      auditSeal && config.auditArchiveDir
        ? { dir: config.auditArchiveDir, everyMs: config.auditArchiveEveryMs ?? 86_400_000 }
        : undefined,
    publicUrl: config.publicUrl,
    signing: config.signing,
    signingUrl: config.signing?.origin,
    notify: config.approvalNotify,
    alerts: parts.recentAlerts,
    ...(options.homeDebounceMs !== undefined ? { homeDebounceMs: options.homeDebounceMs } : {}),
    ...(options.approvalSweepMs ? { sweepMs: options.approvalSweepMs } : {}),
    now: parts.now,
    log: logger,
  });
  // Requests are bound to the API key they were filed under and are never sent with another one.
  if (parts.apiKey) approvals.engine.useServiceKey(keyId(parts.apiKey));
  approvals.engine.onChange(metrics.approvalChanged);
  approvals.engine.passkeys.signatures().onEvent(metrics.signingEvent);
  // One info line per step of a request and per freeze, once stored (approvals/lifecycle-log.ts).
  approvals.engine.onChange(logLifecycle(logger));
  approvals.engine.onFreezeChange(logFreezeChanges(logger));
  return approvals;
}

export function remindersOf(config: Config) {
  return config.approvalReminders ?? parseReminderPoints(DEFAULT_REMINDERS);
}

function limitsOf(config: Config) {
  return {
    windowMs: config.limitWindowMs ?? DEFAULT_LIMIT_WINDOW_MS,
    ...(config.dailyLimit ? { dailyLimit: config.dailyLimit } : {}),
  };
}

function webhooksOf(parts: Base & Pick<Parts, 'approvals'>, privateKey: string | undefined): Webhooks {
  const { config, options, access, approvals, recentAlerts } = parts;
  const webhooks = createWebhooksForSlack({
    store: parts.store,
    api: parts.client,
    // In sandbox mode the embedded service signs with its own secret unless one was configured.
    webhookSecret: config.webhookSecret ?? parts.sandbox?.webhookSecret,
    webhookSecretPrevious: config.webhookSecretPrevious,
    privateKey,
    slackToken: config.slack.botToken,
    slackApiUrl: config.slack.apiUrl,
    ...(access ? { slackFetch: access.fetch, slackHalted: () => access.removed } : {}),
    onIntake: parts.metrics.webhookIntake,
    alertsChannel: config.alertsChannel,
    alertRoutes: config.alertRoutes,
    // The alert is remembered first, so a Home re-published for the request it moves already lists it.
    subscribers: approvals ? [recentAlerts.record, approvals.subscriber] : [recentAlerts.record],
    log: parts.logger,
    now: parts.now,
    ...(options.reconcileIntervalMs ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    ...(options.reconcileGraceMs !== undefined ? { reconcileGraceMs: options.reconcileGraceMs } : {}),
  });
  // A webhook the engine settles nothing by, for the requests it names: a person hears of it in the alerts.
  approvals?.engine.onReportRefused(async ({ delivery, why, ourEnvironment, named }) => {
    await webhooks.pipeline.refused(delivery, { why, ourEnvironment, named });
  });
  // The reconciler's bookkeeping belongs to one environment and key, like approval requests.
  if (parts.apiKey) webhooks.useServiceKey(keyId(parts.apiKey));
  return webhooks;
}

/**
 * The client, the sandbox started here and the store opened here, last of all, the audit marks' last
 * write before them; each even when one failed.
 */
export function closeSharedParts(parts: Parts): Promise<void> {
  return stopInReverse([
    { stop: () => (parts.options.store ? undefined : parts.store.close()) },
    { stop: () => (parts.ownSandbox ? parts.sandbox?.stop() : undefined) },
    { stop: () => parts.client.close() },
    { stop: () => parts.approvals?.auditSeal?.marks.close() },
  ]);
}
