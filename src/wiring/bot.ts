// The whole bot assembled from settled configuration: the shared parts (store, embedded sandbox, service
// client, approvals, webhooks), then the list of what each feature installs, handed to the Slack app in
// order and stopped in the reverse one. main.ts and the test harness both start it this way.

import { parseTiers, peopleNamedBy } from '../access/index.js';
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
import type { AdminServer } from '../metrics/server.js';
import type { ReportSource } from '../reports/types.js';
import type { Sandbox } from '../sandbox/index.js';
import { installSigningPages } from '../signing/index.js';
import { installDeadLetterActions } from '../slack/alerts/install.js';
import type { DeadLetterSlackDeps } from '../slack/alerts/types.js';
import type { PolicyFacts } from '../slack/approvals/commands/policy.js';
import { installCommands } from '../slack/commands/install.js';
import { installDepositViews } from '../slack/deposits/install.js';
import { installGate } from '../slack/gate/install.js';
import { installTxPages } from '../slack/reads/install.js';
import { installScheduledReports } from '../slack/reports/install.js';
import type { ScheduledReports } from '../slack/reports/scheduled.js';
import { observedFetch } from '../slack/runtime/api-calls.js';
import { createSlackApp, type SlackApp } from '../slack/runtime/app.js';
import {
  createInFlight,
  createSlackTraffic,
  type InFlight,
  type SlackTraffic,
} from '../slack/runtime/in-flight.js';
import { type Installed, listenersOf, routesOf, stopInReverse } from '../slack/runtime/installed.js';
import type { Home, People, SlackUser } from '../slack/runtime/people.js';
import { SlackAccess } from '../slack/runtime/slack-access.js';
import { type Store, settledWithin } from '../store/index.js';
import { buildInfo } from '../version.js';
import type { Webhooks } from '../webhooks/index.js';
import { RecentAlerts } from '../webhooks/recent.js';
import { health, healthDetails, startAdmin, watchParts } from './admin.js';
import { type Approvals, auditSealFor, createApprovals } from './approvals.js';
import { gateRoles } from './gate-roles.js';
import { type BotOptions, clientOf, openStore, sandboxOf, serviceKeys } from './parts.js';
import { policyOf } from './policy-inputs.js';
import { treasuryReports } from './reports.js';
import { createRoles, groupSettingsOf, installRoles, type RolesWiring, rolesSetupOf } from './roles.js';
import { createWebhooksForSlack, installWebhooks } from './webhooks.js';

export type { BotOptions } from './parts.js';

export interface Bot {
  config: Config;
  store: Store;
  client: CngnClient;
  sandbox: Sandbox | undefined;
  approvals: Approvals | undefined;
  /** Who holds which role, whether or not approvals are on; `roles.roles` is what the gate asks. */
  roles: RolesWiring;
  webhooks: Webhooks;
  slack: SlackApp;
  /** `http://127.0.0.1:PORT` once started: Slack, webhooks, callbacks, the workbench. */
  url: string;
  /** `http://host:ADMIN_PORT`: the probes and /metrics. */
  adminUrl: string;
  /** With CNGN_REPORT_SCHEDULE and a report source: the scheduled report. */
  scheduledReports: ScheduledReports | undefined;
  /** What the metrics count (served on the admin listener). */
  metrics: BotMetrics;
  admin: AdminServer;
  stop(): Promise<void>;
}

/** What the features are built from: the settled options and the shared parts. */
interface Parts {
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

/** How long a start that failed half-way waits for its stop before reporting the error. */
const FAILED_START_STOP_MS = 15_000;

/**
 * Slack and the admin listener run by now: stopped as a signal stops them, nothing left behind, within
 * as long as a signal's stop is given (main.ts), so the start's error still reaches the supervisor.
 */
async function stopAfterFailedStart(bot: Bot, options: BotOptions): Promise<void> {
  const { logger } = options;
  const waitedMs = options.failedStartStopMs ?? FAILED_START_STOP_MS;
  const stopping = bot
    .stop()
    .catch((error: unknown) => logger.warn('stop after a failed start failed', { error }));
  if (await settledWithin(stopping, waitedMs)) return;
  logger.warn(
    'the stop after a failed start did not finish in time: the start error is rethrown anyway, and some parts may still be closing',
    { waitedMs },
  );
}

export async function startBot(options: BotOptions): Promise<Bot> {
  const parts = await sharedParts(options);
  const { config, store, client, sandbox, approvals, webhooks, roles, metrics } = parts;
  const deadLetters = deadLettersOf(parts);
  const policy = policyFactsOf(parts);
  const reads = readDepsOf(parts);
  const schedule = installScheduledReports(scheduleOf(parts));
  let began = 0;
  let slackStopping: Promise<void> | undefined;
  const stopSlack = () => (slackStopping ??= slack.stop());
  // Listeners go in in this order (the gate in front of all, the tx pages right after /cngn); the
  // parts stop in the reverse one.
  const installs: Installed[] = [
    installGate(gateDepsOf(parts, { deadLetters, policy })),
    installCommands({ ...reads, store, approvals: approvals?.deps, deadLetters, policy }),
    installTxPages(reads),
    installDepositViews(reads),
    installDeadLetterActions(deadLetters),
    ...(approvals?.installs(() => began) ?? []),
    ...signingPagesOf(parts),
    installWebhooks(webhooks),
    { routes: options.routes ?? [] },
    schedule,
    answersUnderWay(parts, stopSlack),
    installRoles(roles),
  ];
  const slack = createSlackApp({
    ...slackAppOptionsOf(parts),
    routes: routesOf(installs),
    plugins: listenersOf(installs),
    traffic: parts.traffic,
  });
  watchParts({ config, logger: options.logger, store, client, approvals, webhooks, slack, metrics });
  const admin = await startOrLeaveNothing(parts, slack);

  let stopped = false;
  const bot: Bot = {
    ...{ config, store, client, sandbox, approvals, roles, webhooks, slack, metrics, admin },
    url: slack.url,
    adminUrl: admin.url,
    scheduledReports: schedule.scheduled(),
    async stop() {
      if (stopped) return;
      stopped = true;
      began = Date.now();
      // Stop taking new work first: from this call on, /readyz says the bot is shutting down.
      void stopSlack();
      // Every part is asked to stop even when one fails; the shared parts close last. Until they do,
      // /readyz says the bot is shutting down (its gauges read the store).
      await stopInReverse([
        { stop: () => closeSharedParts(parts) },
        { stop: () => admin.close() },
        ...installs,
      ]);
    },
  };
  try {
    await approvals?.engine.start();
    await webhooks.start();
  } catch (error) {
    await stopAfterFailedStart(bot, options);
    throw error;
  }
  if (parts.ownSandbox && sandbox) sandbox.setWebhookUrl(`${slack.url}/webhooks/cngn`);
  // A run missed while the bot was down is posted in the background: start-up does not wait for it.
  void schedule.scheduled()?.start();
  return bot;
}

/** The store, sandbox and client; roles, approvals and webhooks over them. */
async function sharedParts(options: BotOptions): Promise<Parts> {
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

function remindersOf(config: Config) {
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
    ...(options.reconcileIntervalMs ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    ...(options.reconcileGraceMs !== undefined ? { reconcileGraceMs: options.reconcileGraceMs } : {}),
  });
  // The reconciler's bookkeeping belongs to one environment and key, like approval requests.
  if (parts.apiKey) webhooks.useServiceKey(keyId(parts.apiKey));
  return webhooks;
}

/** The passkey pages, when approvals are on and signed (CNGN_SIGNED_APPROVALS, CNGN_SIGNING_URL). */
function signingPagesOf({ approvals, logger, metrics }: Parts): Installed[] {
  const signing = approvals?.engine.passkeys.signatures().options;
  if (!approvals || !signing) return [];
  const people = () => approvals.people;
  const { engine } = approvals;
  const refused = metrics.passkeyPageRefused;
  return [installSigningPages({ engine, origin: signing.origin, log: logger, people, refused })];
}

/** Re-posting dead letters is for approvers, and audited: it needs the approvals feature too. */
function deadLettersOf({ approvals, webhooks }: Parts): DeadLetterSlackDeps | undefined {
  return approvals && webhooks.deadLetters
    ? { desk: webhooks.deadLetters, approvals: approvals.deps }
    : undefined;
}

/** What /cngn policy shows; set when approvals are wired. */
function policyFactsOf(parts: Parts): PolicyFacts | undefined {
  const { config, approvals } = parts;
  if (!approvals || !config.approvalsChannel) return undefined;
  return {
    tiers: parseTiers(config.approvalTiers),
    approvers: config.approvers,
    approverGroup: config.approverGroup,
    ttlMs: config.approvalTtlMs,
    reminders: remindersOf(config),
    notify: config.approvalNotify ?? 'both',
    approvalsChannel: config.approvalsChannel,
    alertsChannel: config.alertsChannel,
    environment: parts.client.environment,
    delegations: () => approvals.engine.liveDelegations(),
    freeze: () => approvals.engine.currentFreeze(),
    limits: () => approvals.engine.limitUse(),
    roles: parts.roles.roles,
    // The rule in force, not the start-up one: the workbench's sandbox switches it while the bot runs.
    signing: () => approvals.engine.passkeys.signatures().options?.rule ?? { mode: 'off' },
    home: () => parts.home,
    now: parts.now,
  };
}

/** What the reads (/cngn's, the tx pages, the deposit views) are answered from. */
function readDepsOf(parts: Parts) {
  const { client, logger, now, inFlight, webhooks, reportSource } = parts;
  return {
    api: client,
    logger,
    now,
    inFlight,
    alerts: (references: Array<string | null | undefined>) => webhooks.placements(references),
    reports: reportSource && { source: reportSource, now, logger, inFlight, stopping: parts.stopping.signal },
  };
}

/** With CNGN_REPORT_SCHEDULE, its channel and a report source: the scheduled report's settings. */
function scheduleOf(parts: Parts) {
  const { config, reportSource } = parts;
  const schedule = config.report?.schedule;
  const channel = config.report?.channel;
  if (!reportSource || !schedule || !channel) return undefined;
  return {
    schedule,
    channel,
    store: parts.store,
    source: reportSource,
    now: parts.now,
    logger: parts.logger,
  };
}

/** The gate's deps: the roles it asks, the features wired, and the workspace met at start-up. */
function gateDepsOf(
  parts: Parts,
  wired: { deadLetters: DeadLetterSlackDeps | undefined; policy: PolicyFacts | undefined },
) {
  const { approvals } = parts;
  return {
    roles: parts.options.roles ?? gateRoles(parts.roles.roles, approvals?.engine),
    logger: parts.logger,
    accountChanged: async (user: string, account: SlackUser) => approvals?.vetting?.changed(user, account),
    environment: parts.client.environment,
    features: new Set([
      ...(approvals ? (['approvals'] as const) : []),
      ...(wired.policy ? (['policy'] as const) : []),
      ...(wired.deadLetters ? (['deadLetters'] as const) : []),
    ]),
    // One directory of people for the gate, the audit's names and the delegations, asked once each;
    // the workspace whose members may act is the one auth.test named at start-up.
    met: (home: Home, people: People) => {
      parts.home = home;
      if (approvals) approvals.people = people;
    },
  };
}

/**
 * Answers already acked still reach the user: once Slack stopped taking requests, report builds under
 * way are told to stop and the answers get up to ten seconds.
 */
function answersUnderWay(parts: Parts, slackStopped: () => Promise<void>): Installed {
  return {
    stop: async () => {
      try {
        await slackStopped();
      } finally {
        // Even when Slack's app failed to stop: reports stop reading, acked answers get their time.
        parts.stopping.abort(new Error('the bot is stopping'));
        await parts.inFlight.drain(10_000);
      }
    },
  };
}

function slackAppOptionsOf(parts: Parts) {
  const { options, config, approvals, store } = parts;
  return {
    slack: config.slack,
    port: config.port,
    ...(options.host ? { host: options.host } : {}),
    logger: parts.logger,
    logLevel: config.logLevel,
    ...(options.responseHeaders ? { responseHeaders: options.responseHeaders } : {}),
    health: () => health(store, approvals),
    // The build and the audit trail's last check: shown by /healthz, never a reason to be unready.
    details: healthDetails(approvals),
    ...(parts.access ? { access: parts.access } : {}),
    check: {
      approvalsChannel: approvals ? config.approvalsChannel : undefined,
      alertsChannel: config.alertsChannel,
      approvers: approvals ? config.approvers : [],
      approverGroup: approvals ? config.approverGroup : undefined,
      listed: peopleNamedBy(config.roles),
      // The roles name groups whether or not approvals are on: the gate reads them.
      groupSettings: groupSettingsOf(config),
    },
  };
}

/**
 * Starts the admin listener, puts the settings on the record, then starts Slack; a start-up check that
 * refused, settings that could not be recorded (or a port taken) leave nothing running behind the error.
 */
async function startOrLeaveNothing(parts: Parts, slack: SlackApp): Promise<AdminServer> {
  const { config, logger, metrics, approvals } = parts;
  let admin: AdminServer | undefined;
  try {
    // The probes answer from here on: /livez while the start-up check runs, /readyz once it passed.
    admin = await startAdmin({ config, logger, slack, metrics });
    // The settings in effect on the record before anything else is: every approval step comes after
    // the settings that judged it. A bot that cannot record them refuses to start.
    await approvals?.engine.openTrail();
    // Frozen before the bot takes a click or resumes what a restored store holds: nothing is sent first.
    const startFreeze = config.startFrozen ? await approvals?.engine.freezeAtStart() : undefined;
    await slack.start();
    startFreeze?.announce(); // now that Slack is connected and the listeners are there
    return admin;
  } catch (error) {
    await admin?.close();
    await slack.stop().catch(() => undefined);
    parts.roles.stop();
    await closeSharedParts(parts);
    throw error;
  }
}

/** The client, the sandbox started here and the store opened here, last of all; each even when one failed. */
function closeSharedParts(parts: Parts): Promise<void> {
  return stopInReverse([
    { stop: () => (parts.options.store ? undefined : parts.store.close()) },
    { stop: () => (parts.ownSandbox ? parts.sandbox?.stop() : undefined) },
    { stop: () => parts.client.close() },
  ]);
}
