// The whole bot assembled from settled configuration: store → (embedded sandbox) → service client →
// approvals → webhooks → Slack app. main.ts and the test harness both start it this way.
import { setTimeout as sleep } from 'node:timers/promises';
import type { App, CustomRoute } from '@slack/bolt';
import type { Roles } from '../access/index.js';
import { parseTiers, peopleNamedBy } from '../access/index.js';
import {
  DEFAULT_LIMIT_WINDOW_MS,
  DEFAULT_REMINDERS,
  logFreezeChanges,
  logLifecycle,
  parseReminderPoints,
  STOP_DRAIN_MS,
} from '../approvals/index.js';
import { type CngnClient, createCngnClient } from '../cngn/client.js';
import { environmentFromKey, keyId } from '../cngn/credentials.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { BotMetrics } from '../metrics/index.js';
import type { AdminServer } from '../metrics/server.js';
import type { ReportSource } from '../reports/types.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../sandbox/index.js';
import { registerDeadLetterActions } from '../slack/alerts/dead-letter-actions.js';
import { registerCommands } from '../slack/commands/router.js';
import { registerDepositQuoteViews } from '../slack/deposits/views.js';
import { registerGate } from '../slack/gate/gate.js';
import { registerTxPages } from '../slack/reads/tx-pages.js';
import { reportClient } from '../slack/reports/delivery.js';
import { ScheduledReports } from '../slack/reports/scheduled.js';
import { observedFetch } from '../slack/runtime/api-calls.js';
import { createSlackApp, type SlackApp } from '../slack/runtime/app.js';
import { Deliveries } from '../slack/runtime/deliveries.js';
import { createInFlight, createSlackTraffic } from '../slack/runtime/in-flight.js';
import { type Home, People } from '../slack/runtime/people.js';
import { SlackAccess } from '../slack/runtime/slack-access.js';
import { checkStoreDurability, createStore, type Store } from '../store/index.js';
import { buildInfo } from '../version.js';
import type { Webhooks } from '../webhooks/index.js';
import { RecentAlerts } from '../webhooks/recent.js';
import { health, healthDetails, startAdmin, watchParts } from './admin.js';
import { type Approvals, auditSealFor, BRIDGE_CALLBACK_PATH, createApprovals } from './approvals.js';
import { gateRoles } from './gate-roles.js';
import { policyOf } from './policy-inputs.js';
import { treasuryReports } from './reports.js';
import { createRoles, groupSettingsOf, type RolesWiring, rolesSetupOf } from './roles.js';
import { createWebhooksForSlack } from './webhooks.js';

export interface BotOptions {
  config: Config;
  logger: Logger;
  /** Tests pass their own; otherwise built from STORE_URL. */
  store?: Store;
  /** Tests pass a sandbox they control; otherwise one is started when no credentials are set. */
  sandbox?: Sandbox;
  sandboxOptions?: SandboxOptions;
  now?: () => Date;
  /** Client fine-tuning (tests: short timeouts). */
  clientTimeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** Listen on this address only (default: every address, as Bolt does). */
  host?: string;
  /** More HTTP routes on the bot's server (start-up wiring adds the workbench's). */
  routes?: CustomRoute[];
  /** Headers on every answer of the bot's HTTP server (the workbench's page rules). */
  responseHeaders?: Readonly<Record<string, string>>;
  /** Tests drive the webhook reconciler themselves. */
  reconcileIntervalMs?: number;
  reconcileGraceMs?: number;
  /** App Home's per-person debounce (tests: short). */
  homeDebounceMs?: number;
  /** Record the policy in the audit chain at start (default true; tests of other features leave it out). */
  recordPolicy?: boolean;
  /** Where treasury reports come from (`/cngn report`, the schedule); unset: reports are off. */
  reportSource?: ReportSource;
  /** Who holds which role, as the gate asks; tests may pass their own (otherwise the configured roles). */
  roles?: Roles;
}

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

function rawBodyRoute(
  path: string,
  handle: (params: Record<string, string>, body: string) => Promise<{ status: number; body: string }>,
): CustomRoute {
  return {
    path,
    method: ['POST'],
    handler: (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= 16_384) chunks.push(chunk);
      });
      req.on('end', () => {
        const answer =
          size > 16_384
            ? Promise.resolve({ status: 413, body: 'too large' })
            : handle((req.params ?? {}) as Record<string, string>, Buffer.concat(chunks).toString('utf8'));
        void answer
          .catch(() => ({ status: 500, body: 'error' }))
          .then((a) => {
            res.writeHead(a.status, { 'content-type': 'text/plain' });
            res.end(a.body);
          });
      });
    },
  };
}

export async function startBot(options: BotOptions): Promise<Bot> {
  const { config, logger } = options;
  const now = options.now ?? (() => new Date());
  const store = options.store ?? (await createStore(config.storeUrl, { log: logger }));
  const live = config.service.mode === 'service' && environmentFromKey(config.service.apiKey) === 'live';
  try {
    await checkStoreDurability(store, { live, log: logger });
  } catch (error) {
    if (!options.store) await store.close();
    throw error;
  }
  const metrics = new BotMetrics({ log: logger, build: buildInfo() });
  const observer = { observer: metrics.serviceCalls };
  const slackFetch = observedFetch(metrics.slackCall);
  const ownSandbox = !options.sandbox && config.service.mode === 'sandbox';
  const sandbox =
    options.sandbox ??
    (ownSandbox
      ? await startSandbox({
          ...(config.webhookSecret ? { webhookSecret: config.webhookSecret } : {}),
          log: (line) => logger.debug(line),
          ...options.sandboxOptions,
        })
      : undefined);
  const service = config.service;
  const client = createCngnClient(
    sandbox
      ? {
          baseUrl: sandbox.baseUrl,
          apiKey: sandbox.apiKey,
          encryptionKey: sandbox.encryptionKey,
          privateKey: sandbox.privateKey,
          environment: 'sandbox',
          store,
          rateLimit: config.rateLimit,
          logger,
          ...observer,
          ...(options.clientTimeouts ? { timeouts: options.clientTimeouts } : {}),
        }
      : service.mode === 'service'
        ? {
            baseUrl: service.baseUrl,
            apiKey: service.apiKey,
            encryptionKey: service.encryptionKey,
            privateKey: service.privateKey,
            store,
            rateLimit: config.rateLimit,
            logger,
            ...observer,
            ...(options.clientTimeouts ? { timeouts: options.clientTimeouts } : {}),
          }
        : (() => {
            throw new Error('no service credentials and no sandbox');
          })(),
  );

  const slackOn = Boolean(config.slack.botToken);
  // Every Slack call of the bot passes here, so Slack removing the app stops them all at once.
  // Every Slack call passes the removal gate, then (with metrics) the observer of Slack's answers.
  const access = slackOn ? new SlackAccess(logger, slackFetch) : undefined;
  const reminders = config.approvalReminders ?? parseReminderPoints(DEFAULT_REMINDERS);
  const limits = {
    windowMs: config.limitWindowMs ?? DEFAULT_LIMIT_WINDOW_MS,
    ...(config.dailyLimit ? { dailyLimit: config.dailyLimit } : {}),
  };
  const recentAlerts = new RecentAlerts(store, now);
  const approvalsOn = slackOn && Boolean(config.approvalsChannel);
  const roles = createRoles({ ...rolesSetupOf(config), log: logger });
  const auditSeal = approvalsOn ? auditSealFor(config, logger) : undefined;
  const approvals =
    approvalsOn && config.approvalsChannel
      ? createApprovals({
          store,
          api: client,
          approvalsChannel: config.approvalsChannel,
          alertsChannel: config.alertsChannel,
          roles: roles.roles,
          tiers: config.approvalTiers,
          ttlMs: config.approvalTtlMs,
          limits,
          reminders,
          auditRetentionMs: config.auditRetentionMs,
          policySnapshot: options.recordPolicy === false ? undefined : policyOf(config, client.environment),
          auditSeal,
          auditArchive:
            auditSeal && config.auditArchiveDir
              ? { dir: config.auditArchiveDir, everyMs: config.auditArchiveEveryMs ?? 86_400_000 }
              : undefined,
          publicUrl: config.publicUrl,
          notify: config.approvalNotify,
          alerts: recentAlerts,
          ...(options.homeDebounceMs !== undefined ? { homeDebounceMs: options.homeDebounceMs } : {}),
          now,
          log: logger,
        })
      : undefined;
  // Requests are bound to the API key they were filed under and are never sent with another one.
  const apiKey = sandbox ? sandbox.apiKey : service.mode === 'service' ? service.apiKey : undefined;
  if (apiKey) approvals?.engine.useServiceKey(keyId(apiKey));
  approvals?.engine.onChange(metrics.approvalChanged);
  // One info line per step of a request and per freeze, once stored (approvals/lifecycle-log.ts).
  approvals?.engine.onChange(logLifecycle(logger));
  approvals?.engine.onFreezeChange(logFreezeChanges(logger));
  const privateKey = sandbox
    ? sandbox.privateKey
    : service.mode === 'service'
      ? service.privateKey
      : undefined;
  const webhooks = createWebhooksForSlack({
    store,
    api: client,
    // In sandbox mode the embedded service signs with its own secret unless one was configured.
    webhookSecret: config.webhookSecret ?? sandbox?.webhookSecret,
    webhookSecretPrevious: config.webhookSecretPrevious,
    privateKey,
    slackToken: config.slack.botToken,
    slackApiUrl: config.slack.apiUrl,
    ...(access ? { slackFetch: access.fetch, slackHalted: () => access.removed } : {}),
    onIntake: metrics.webhookIntake,
    alertsChannel: config.alertsChannel,
    alertRoutes: config.alertRoutes,
    // The alert is remembered first, so a Home re-published for the request it moves already lists it.
    subscribers: approvals ? [recentAlerts.record, approvals.subscriber] : [recentAlerts.record],
    log: logger,
    ...(options.reconcileIntervalMs ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    ...(options.reconcileGraceMs !== undefined ? { reconcileGraceMs: options.reconcileGraceMs } : {}),
  });
  // The reconciler's bookkeeping belongs to one environment and key, like approval requests.
  if (apiKey) webhooks.useServiceKey(keyId(apiKey));

  // Re-posting dead letters is for approvers, and audited: it needs the approvals feature too.
  const deadLetters =
    approvals && webhooks.deadLetters ? { desk: webhooks.deadLetters, approvals: approvals.deps } : undefined;
  // Answers wait while Slack requests keep arriving, so a burst is acked first.
  const traffic = createSlackTraffic();
  const inFlight = createInFlight({ traffic });
  /** Fired when the bot stops: on-demand report builds under way stop reading the service. */
  const stopping = new AbortController();
  const reportSource = options.reportSource ?? (apiKey ? treasuryReports(client, store, apiKey) : undefined);
  const readDeps = {
    api: client,
    logger,
    now,
    inFlight,
    alerts: (references: Array<string | null | undefined>) => webhooks.placements(references),
    reports: reportSource && { source: reportSource, now, logger, inFlight, stopping: stopping.signal },
  };
  // The workspace auth.test named, once the app exists: /cngn policy names only members who may act.
  let home: Home | undefined;
  const policy =
    approvals && config.approvalsChannel
      ? {
          tiers: parseTiers(config.approvalTiers),
          approvers: config.approvers,
          approverGroup: config.approverGroup,
          ttlMs: config.approvalTtlMs,
          reminders,
          notify: config.approvalNotify ?? 'both',
          approvalsChannel: config.approvalsChannel,
          alertsChannel: config.alertsChannel,
          environment: client.environment,
          delegations: () => approvals.engine.liveDelegations(),
          freeze: () => approvals.engine.currentFreeze(),
          limits: () => approvals.engine.limitUse(),
          roles: roles.roles,
          home: () => home,
          now,
        }
      : undefined;
  const gate = options.roles ?? gateRoles(roles.roles, approvals?.engine);
  const routes: CustomRoute[] = [webhooks.route, ...(options.routes ?? [])];
  if (approvals) {
    routes.push(
      rawBodyRoute(BRIDGE_CALLBACK_PATH, (params, body) =>
        approvals.bridgeCallback(params.token ?? '', body),
      ),
    );
  }
  const slack = createSlackApp({
    slack: config.slack,
    port: config.port,
    ...(options.host ? { host: options.host } : {}),
    logger,
    logLevel: config.logLevel,
    routes,
    ...(options.responseHeaders ? { responseHeaders: options.responseHeaders } : {}),
    health: () => health(store, approvals),
    // The build and the audit trail's last check: shown by /healthz, never a reason to be unready.
    details: healthDetails(approvals),
    traffic,
    ...(access ? { access } : {}),
    check: {
      approvalsChannel: approvals ? config.approvalsChannel : undefined,
      alertsChannel: config.alertsChannel,
      approvers: approvals ? config.approvers : [],
      approverGroup: approvals ? config.approverGroup : undefined,
      listed: peopleNamedBy(config.roles),
      // The roles name groups whether or not approvals are on: the gate reads them.
      groupSettings: groupSettingsOf(config),
    },
    plugins: [
      // In front of every listener: who may use what (src/slack/access.ts) is checked before any runs.
      (app, identity) => {
        // One directory of people for the gate, the audit's names and the delegations, asked once each;
        // the workspace whose members may act is the one auth.test named at start-up.
        home = { teamId: identity.teamId, team: identity.team, enterpriseId: identity.enterpriseId };
        const people = new People(app.client, { home });
        if (approvals) approvals.people = people;
        registerGate(app, {
          people,
          home,
          roles: gate,
          logger,
          accountChanged: async (user) => approvals?.vetting?.changed(user),
          environment: client.environment,
          features: new Set([
            ...(approvals ? (['approvals'] as const) : []),
            ...(policy ? (['policy'] as const) : []),
            ...(deadLetters ? (['deadLetters'] as const) : []),
          ]),
        });
      },
      (app) =>
        registerCommands(app, {
          ...readDeps,
          reports: readDeps.reports && { ...readDeps.reports, client: reportClient(app) },
          deliveries: new Deliveries(store),
          approvals: approvals?.deps,
          deadLetters,
          policy,
        }),
      (app) => registerTxPages(app, readDeps),
      (app) => registerDepositQuoteViews(app, readDeps),
      ...(deadLetters ? [(app: App) => registerDeadLetterActions(app, deadLetters)] : []),
      ...(approvals ? [approvals.plugin] : []),
      roles.plugin,
    ],
  });
  watchParts({ config, logger, store, client, approvals, webhooks, slack, metrics });
  let admin: AdminServer | undefined;
  try {
    // The probes answer from here on: /livez while the start-up check runs, /readyz once it passed.
    admin = await startAdmin({ config, logger, slack, metrics });
    // Frozen before the bot takes a click or resumes what a restored store holds: nothing is sent first.
    const startFreeze = config.startFrozen ? await approvals?.engine.freezeAtStart() : undefined;
    await slack.start();
    startFreeze?.announce(); // now that Slack is connected and the listeners are there
  } catch (error) {
    // The start-up check refused (or a port is taken): leave nothing running behind the error.
    await admin?.close();
    await slack.stop().catch(() => undefined);
    roles.stop();
    await client.close();
    if (ownSandbox) await sandbox?.stop();
    if (!options.store) await store.close();
    throw error;
  }
  await approvals?.engine.start();
  await webhooks.start();
  if (ownSandbox && sandbox) sandbox.setWebhookUrl(`${slack.url}/webhooks/cngn`);
  const schedule = config.report?.schedule;
  const reportChannel = config.report?.channel;
  const scheduledReports =
    reportSource && schedule && reportChannel && slack.app
      ? new ScheduledReports({
          schedule,
          channel: reportChannel,
          store,
          client: reportClient(slack.app),
          source: reportSource,
          now,
          logger,
        })
      : undefined;
  // A run missed while the bot was down is posted in the background: start-up does not wait for it.
  void scheduledReports?.start();

  let stopped = false;
  const bot: Bot = {
    config,
    store,
    client,
    sandbox,
    approvals,
    roles,
    webhooks,
    slack,
    url: slack.url,
    adminUrl: admin.url,
    scheduledReports,
    metrics,
    admin,
    async stop() {
      if (stopped) return;
      stopped = true;
      const began = Date.now();
      // Stop taking new work first: from this call on, /readyz says the bot is shutting down.
      const slackStopped = slack.stop();
      roles.stop();
      await slackStopped;
      stopping.abort(new Error('the bot is stopping'));
      await inFlight.drain(10_000); // answers already acked still reach the user
      await scheduledReports?.stop();
      await webhooks.stop();
      // Executions under way get what is left of the drain bound (at least a second), then are left
      // loudly, well before main's forced exit: an answer the store will not take is logged, not lost.
      const drainMs = Math.max(1_000, STOP_DRAIN_MS - (Date.now() - began));
      await approvals?.engine.stop({ drainMs });
      // Approval messages and DMs already under way are finished (bounded), before the store closes.
      approvals?.home?.stop();
      approvals?.vetting?.stop();
      approvals?.presenter?.stop();
      const presenting = approvals
        ? Promise.all([approvals.presenter?.idle(), approvals.dms?.idle(), approvals.home?.idle()])
        : undefined;
      if (presenting) await Promise.race([presenting, sleep(10_000, undefined, { ref: false })]);
      // Until here /readyz said the bot is shutting down; its gauges read the store, which closes below.
      await admin.close();
      await client.close();
      if (ownSandbox) await sandbox?.stop();
      if (!options.store) await store.close();
    },
  };
  return bot;
}
