// Builds the webhooks feature from settled configuration, so start-up and the test harness wire it the
// same way: the POST /webhooks/cngn route, the outbox deliverer posting with the alert builders, the
// reconciler over the client, bank names from the client's cached list, and subscribers (approvals).
import type { WebClientOptions } from '@slack/web-api';
import type { CngnApi } from '../cngn/api.js';
import type { Logger } from '../log.js';
import { alertDigest } from '../slack/alerts/digest-blocks.js';
import { webhookMessage } from '../slack/alerts/message-blocks.js';
import { slackAlerts } from '../slack/alerts/sink.js';
import type { Installed } from '../slack/runtime/installed.js';
import type { Store } from '../store/index.js';
import {
  bankNamesFrom,
  createWebhooks,
  type IntakeResult,
  sealedDataOpener,
  type WebhookSubscriber,
  type Webhooks,
} from '../webhooks/index.js';

export interface WebhooksSetup {
  store: Store;
  api: CngnApi;
  /** CNGN_WEBHOOK_SECRET; unset → every delivery is refused. */
  webhookSecret?: string | undefined;
  /** CNGN_WEBHOOK_SECRET_PREVIOUS: also accepted during a rotation. */
  webhookSecretPrevious?: string | undefined;
  /** OpenSSH private key text, to open `data` that arrives sealed. */
  privateKey?: string | undefined;
  /** SLACK_BOT_TOKEN / SLACK_API_URL for the alerts client (its own: retries are the outbox's). */
  slackToken?: string | undefined;
  slackApiUrl?: string | undefined;
  /** The gate every Slack call passes (slack/runtime/slack-access.ts): its fetch, and why it is shut. */
  slackFetch?: WebClientOptions['fetch'];
  slackHalted?: () => string | undefined;
  /** Told of each webhook delivery's result (metrics). */
  onIntake?: ((result: IntakeResult) => void) | undefined;
  /** CNGN_ALERTS_CHANNEL */
  alertsChannel?: string | undefined;
  /** CNGN_ALERT_ROUTES, e.g. `deposit.*:C0DEPOSITS,transaction.failed:C0FAILURES` */
  alertRoutes?: string | undefined;
  subscribers?: WebhookSubscriber[];
  log?: Logger | undefined;
  /** Tests: run the reconciler by hand and without the grace period. */
  reconcileIntervalMs?: number;
  reconcileGraceMs?: number;
  /** The bot's clock: a delivery signed too long ago is posted only as a possible replay. */
  now?: () => Date;
}

export function createWebhooksForSlack(setup: WebhooksSetup): Webhooks {
  const clock = setup.now;
  return createWebhooks({
    store: setup.store,
    environment: setup.api.environment,
    secret: setup.webhookSecret || undefined,
    previousSecret: setup.webhookSecretPrevious || undefined,
    openSealed: setup.privateKey ? sealedDataOpener(setup.privateKey) : undefined,
    sink: setup.slackToken ? slackAlerts(setup.slackToken, setup.slackApiUrl, setup.slackFetch) : undefined,
    slackHalted: setup.slackHalted,
    render: (input) => webhookMessage(input),
    renderDigest: alertDigest,
    alertsChannel: setup.alertsChannel || undefined,
    alertRoutes: setup.alertRoutes,
    transactions: setup.api,
    bankName: bankNamesFrom(setup.api),
    subscribers: setup.subscribers ?? [],
    onIntake: setup.onIntake,
    ...(setup.log ? { log: setup.log } : {}),
    ...(clock ? { now: () => clock().getTime() } : {}),
    ...(setup.reconcileIntervalMs ? { reconcileIntervalMs: setup.reconcileIntervalMs } : {}),
    ...(setup.reconcileGraceMs !== undefined ? { reconcileGraceMs: setup.reconcileGraceMs } : {}),
  });
}

/** The webhooks as the start-up wiring lists them: POST /webhooks/cngn, stopped with the bot. */
export function installWebhooks(webhooks: Webhooks): Installed {
  return { routes: [webhooks.route], stop: () => webhooks.stop() };
}
