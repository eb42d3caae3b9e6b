// The whole bot assembled from settled configuration: the shared parts (store, embedded sandbox, service
// client, approvals, webhooks), then the list of what each feature installs, handed to the Slack app in
// order and stopped in the reverse one. main.ts and the test harness both start it this way.

import { parseTiers, peopleNamedBy } from '../access/index.js';
import type { CngnClient } from '../cngn/client.js';
import type { Config } from '../config.js';
import type { BotMetrics } from '../metrics/index.js';
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
import { createSlackApp, type SlackApp } from '../slack/runtime/app.js';
import { type Installed, listenersOf, routesOf, stopInReverse } from '../slack/runtime/installed.js';
import type { Home, People, SlackUser } from '../slack/runtime/people.js';
import { type Store, settledWithin } from '../store/index.js';
import type { Webhooks } from '../webhooks/index.js';
import { type AdminListeners, health, healthDetails, startAdmin, watchParts } from './admin.js';
import type { Approvals } from './approvals.js';
import { gateRoles } from './gate-roles.js';
import type { BotOptions } from './parts.js';
import { groupSettingsOf, installRoles, type RolesWiring } from './roles.js';
import { closeSharedParts, type Parts, remindersOf, sharedParts } from './shared-parts.js';
import { installWebhooks } from './webhooks.js';

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
  /** `http://host:ADMIN_PORT`: the probes and /metrics; undefined with ADMIN_PORT=0. */
  adminUrl: string | undefined;
  /** `http://host:METRICS_PORT`: /metrics alone; undefined unless METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /** With CNGN_REPORT_SCHEDULE and a report source: the scheduled report. */
  scheduledReports: ScheduledReports | undefined;
  /** What the metrics count (served on the admin listener). */
  metrics: BotMetrics;
  admin: AdminListeners;
  stop(): Promise<void>;
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
    adminUrl: admin.admin?.url,
    metricsUrl: admin.metrics?.url,
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
    environment: parts.client.environment,
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
async function startOrLeaveNothing(parts: Parts, slack: SlackApp): Promise<AdminListeners> {
  const { config, logger, metrics, approvals } = parts;
  let admin: AdminListeners | undefined;
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
