// The webhooks feature assembled: the POST /webhooks/cngn route, the pipeline (dedupe → outbox →
// subscribers), the deliverer (outbox → Slack) and the reconciler. main.ts and the test harness call
// createWebhooks(...) and hand `route` to the Slack app's routes, then start().
import type { CngnEnvironment } from '../cngn/api.js';
import { curveSecretFromSeed, openResponseData, parseOpenSshPrivateKey } from '../cngn/wire.js';
import { firstTime, outsideTimeIso } from '../format/outside-time.js';
import { type Logger, silentLogger } from '../log.js';
import type { Store } from '../store/index.js';
import type { BankNameLookup } from './alert.js';
import type { AlertSink } from './alert-sink.js';
import { DeadLetterDesk } from './dead-letters.js';
import { Deliverer } from './deliverer.js';
import { type IntakeResult, type WebhookRoute, webhookRoute } from './intake.js';
import { DEFAULT_RETENTION_MS, Outbox } from './outbox.js';
import { WebhookPipeline } from './pipeline.js';
import { Reconciler, type TransactionSource } from './reconciler.js';
import { RepeatedWarnings } from './repeated-warnings.js';
import { type AlertRoute, alertRouter, parseAlertRoutes } from './routing.js';
import type { DigestRendering, OutboxEntry, RenderAlert, Stale, WebhookSubscriber } from './types.js';

export type * from './alert-sink.js';
export { DeadLetterDesk, type RepostOutcome, type RepostResult } from './dead-letters.js';

export type { IntakeResult } from './intake.js';

export type { OutboxBacklog } from './outbox.js';

export { Reconciler, type TransactionSource } from './reconciler.js';

export { signatureFor } from './signature.js';
export type * from './types.js';

export interface WebhooksOptions {
  store: Store;
  environment: CngnEnvironment;
  /** Non-reversible id of the API key (see keyId in cngn/credentials); or useServiceKey before start. */
  keyId?: string | undefined;
  /** CNGN_WEBHOOK_SECRET; unset → deliveries refused (401). */
  secret: string | undefined;
  /** CNGN_WEBHOOK_SECRET_PREVIOUS: also accepted during a rotation. */
  previousSecret?: string | undefined;
  /** Opens sealed `data` with the client's private key. */
  openSealed?: ((sealed: string) => string) | undefined;
  /** Where alerts are posted (slack/alerts/sink.ts); unset → events stay in the outbox. */
  sink?: AlertSink | undefined;
  /** Why Slack may no longer be called (the app was removed), or undefined: alerts then stay in the outbox. */
  slackHalted?: (() => string | undefined) | undefined;
  /** The message builders (slack/alerts/message-blocks.ts), injected to keep webhooks/ free of slack/. */
  render: RenderAlert;
  /** The digest builders (slack/alerts/digest-blocks.ts); unset → one message per event under any load. */
  renderDigest?: DigestRendering | undefined;
  /** Routine events waiting for a channel beyond which they are grouped into digests (default 5). */
  digestAbove?: number;
  /** Events one digest message lists at most (default 100; fewer when Slack's limits say so). */
  digestMaxEvents?: number;
  /** CNGN_ALERTS_CHANNEL */
  alertsChannel?: string | undefined;
  /** CNGN_ALERT_ROUTES, raw or parsed. */
  alertRoutes?: string | AlertRoute[] | undefined;
  /** Replaces kind-based routing entirely (the bench spreads a burst over channels). */
  route?: (entry: OutboxEntry) => string | undefined;
  /** The client's transaction list; unset → no reconciler. */
  transactions?: TransactionSource | undefined;
  /** Bank name for a code, e.g. from the client's cached bank list; unset → "Bank code 044". */
  bankName?: BankNameLookup | undefined;
  subscribers?: WebhookSubscriber[];
  log?: Logger;
  /** Told of each delivery's result (metrics); must be cheap and not throw. */
  onIntake?: ((result: IntakeResult) => void) | undefined;
  bodyLimitBytes?: number;
  /** How long storing a delivery may take before it is answered 503 (intake's default otherwise). */
  storeTimeoutMs?: number;
  retentionMs?: number;
  /** The clock a delivery's signed time is judged by (epoch ms; real time otherwise). */
  now?: () => number;
  reconcileIntervalMs?: number;
  reconcileGraceMs?: number;
  leaseMs?: number;
  rescanMs?: number;
  maxBackoffMs?: number;
  /** Attempts at an alert failing with an unknown Slack error before it is set aside. */
  maxAttempts?: number;
  /** The deliverer's waits (Retry-After, backoff); tests observe them instead of waiting. */
  sleep?: (ms: number) => Promise<void>;
}

/** Where the alert for one event of a reference is: which message carries it, or why none does. */
export interface AlertPlacement {
  event: string;
  state: 'posted' | 'waiting' | 'set-aside';
  channel?: string;
  ts?: string;
  /** Carried by a digest message (its part number in its run). */
  digestPart?: number;
  /** What the event said, as the alert recorded it. */
  recorded: AlertRecord;
  /** Its signed time does not vouch for it: possibly a replay (posted only as a warning). */
  stale?: Stale;
}

/** An event's own words, kept with its alert: enough to answer for a transaction the service forgot. */
export interface AlertRecord {
  at?: string;
  amount?: string;
  asset?: string;
  status?: string;
  reference?: string;
  transactionId?: string;
  network?: string;
  reason?: string;
}

function alertRecord(entry: OutboxEntry): AlertRecord {
  const { data } = entry.event;
  const at = firstTime(data.occurredAt, entry.event.timestamp);
  const record: AlertRecord = {};
  // As the bot read it (UTC when it names no zone), so a screen shows the instant the bot judged by.
  if (at) record.at = outsideTimeIso(at) ?? at;
  if (data.amount) record.amount = String(data.amount);
  if (data.asset_symbol) record.asset = data.asset_symbol;
  if (data.status) record.status = data.status;
  if (data.trx_ref) record.reference = data.trx_ref;
  if (data.transactionId) record.transactionId = String(data.transactionId);
  if (data.network) record.network = data.network;
  if (data.reason) record.reason = data.reason;
  return record;
}

export interface Webhooks {
  route: WebhookRoute;
  /** The alerts for these references (trx_ref or transaction id), oldest first, each event once. */
  placements(references: Array<string | null | undefined>): Promise<AlertPlacement[]>;
  pipeline: WebhookPipeline;
  outbox: Outbox;
  deliverer: Deliverer | undefined;
  /** Alerts Slack would not take, to list and re-post (needs the Slack client). */
  deadLetters: DeadLetterDesk | undefined;
  reconciler: Reconciler | undefined;
  subscribe(subscriber: WebhookSubscriber): void;
  /** The reconciler keeps its bookkeeping per environment and this API key (start-up, before start). */
  useServiceKey(keyId: string): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createWebhooks(options: WebhooksOptions): Webhooks {
  const log = options.log ?? silentLogger;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const outbox = new Outbox(options.store, retentionMs);
  const byKind = alertRouter(options.alertsChannel, alertRoutes(options.alertRoutes));
  const deliverer = options.sink ? newDeliverer(options, options.sink, outbox, byKind, log) : undefined;
  const deadLetters = options.sink
    ? new DeadLetterDesk({
        outbox,
        store: options.store,
        sink: options.sink,
        render: options.render,
        environment: options.environment,
        bankName: options.bankName,
        log,
      })
    : undefined;
  const pipeline = new WebhookPipeline({
    store: options.store,
    outbox,
    environment: options.environment,
    subscribers: options.subscribers ?? [],
    onEnqueued: () => deliverer?.kick(),
    log,
    retentionMs,
    ...(options.now ? { now: options.now } : {}),
  });
  const reconciler = options.transactions
    ? newReconciler(options, options.transactions, pipeline, retentionMs, log)
    : undefined;
  const warnings = new RepeatedWarnings(log);
  const route = newRoute(options, pipeline, warnings, log);
  warnAboutSecrets(options, log);
  return {
    route,
    placements: (references) => alertPlacements(outbox, references),
    pipeline,
    outbox,
    deliverer,
    deadLetters,
    reconciler,
    subscribe: (subscriber) => pipeline.subscribe(subscriber),
    useServiceKey: (keyId) => reconciler?.useServiceKey(keyId),
    async start() {
      await deliverer?.start();
      await reconciler?.start();
      await pipeline.resumeSubscribers();
    },
    async stop() {
      await reconciler?.stop();
      await deliverer?.stop();
      await pipeline.settled();
      warnings.flush();
    },
  };
}

/** CNGN_ALERT_ROUTES parsed (a bad value throws, sink or not). */
function alertRoutes(routes: WebhooksOptions['alertRoutes']): AlertRoute[] {
  return typeof routes === 'string' ? parseAlertRoutes(routes) : (routes ?? []);
}

/** The deliverer, routing each alert by its kind unless `options.route` replaces that. */
function newDeliverer(
  options: WebhooksOptions,
  sink: AlertSink,
  outbox: Outbox,
  byKind: (event: string) => string | undefined,
  log: Logger,
): Deliverer {
  return new Deliverer({
    outbox,
    store: options.store,
    sink,
    render: options.render,
    // A needs-a-person alert goes where alerts are watched, whatever the event's own route.
    route:
      options.route ?? ((entry) => (entry.refused && options.alertsChannel) || byKind(entry.event.event)),
    fallbackChannel: options.alertsChannel,
    bankName: options.bankName,
    log,
    ...(options.slackHalted ? { halted: options.slackHalted } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.rescanMs ? { rescanMs: options.rescanMs } : {}),
    ...(options.maxBackoffMs ? { maxBackoffMs: options.maxBackoffMs } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    digest: options.renderDigest,
    ...(options.digestAbove !== undefined ? { digestAbove: options.digestAbove } : {}),
    ...(options.digestMaxEvents ? { digestMaxEvents: options.digestMaxEvents } : {}),
  });
}

function newReconciler(
  options: WebhooksOptions,
  source: TransactionSource,
  pipeline: WebhookPipeline,
  retentionMs: number,
  log: Logger,
): Reconciler {
  return new Reconciler({
    source,
    pipeline,
    store: options.store,
    environment: options.environment,
    keyId: options.keyId,
    log,
    retentionMs,
    ...(options.now ? { now: options.now } : {}),
    ...(options.reconcileIntervalMs ? { intervalMs: options.reconcileIntervalMs } : {}),
    ...(options.reconcileGraceMs !== undefined ? { graceMs: options.reconcileGraceMs } : {}),
  });
}

function newRoute(
  options: WebhooksOptions,
  pipeline: WebhookPipeline,
  warnings: RepeatedWarnings,
  log: Logger,
): WebhookRoute {
  return webhookRoute({
    secret: options.secret,
    previousSecret: options.previousSecret,
    pipeline,
    openSealed: options.openSealed,
    log,
    warnings,
    onResult: options.onIntake,
    ...(options.bodyLimitBytes ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
    ...(options.storeTimeoutMs ? { storeTimeoutMs: options.storeTimeoutMs } : {}),
  });
}

/** At start-up: deliveries will be refused, or the previous secret is still accepted. */
function warnAboutSecrets(options: WebhooksOptions, log: Logger): void {
  if (!options.secret) log.warn('CNGN_WEBHOOK_SECRET is not set: webhook deliveries will be refused');
  if (options.secret && options.previousSecret) {
    log.info(
      'CNGN_WEBHOOK_SECRET_PREVIOUS is set: deliveries signed with the previous webhook secret are accepted too; remove it once none arrive',
    );
  }
}

async function alertPlacements(
  outbox: Outbox,
  references: Array<string | null | undefined>,
): Promise<AlertPlacement[]> {
  const entries = new Map<string, OutboxEntry>();
  for (const reference of new Set(references)) {
    if (!reference) continue;
    for (const entry of await outbox.entriesFor(reference)) {
      // A needs-a-person alert about a delivery is not an event's alert of its own.
      if (!entry.refused) entries.set(entry.id, entry);
    }
  }
  return [...entries.values()]
    .sort((a, b) => a.seq - b.seq)
    .map((entry) => ({
      event: entry.event.event,
      state: entry.deadLetteredAt ? 'set-aside' : entry.deliveredAt ? 'posted' : 'waiting',
      ...(entry.postedChannel ? { channel: entry.postedChannel } : {}),
      ...(entry.ts ? { ts: entry.ts } : {}),
      ...(entry.digestPart ? { digestPart: entry.digestPart } : {}),
      ...(entry.stale ? { stale: entry.stale } : {}),
      recorded: alertRecord(entry),
    }));
}

/** Opens event `data` that arrives sealed like response data, with the business's private key. */
export function sealedDataOpener(privateKey: string): (sealed: string) => string {
  const curveSecret = curveSecretFromSeed(parseOpenSshPrivateKey(privateKey).seed);
  return (sealed) => openResponseData(sealed, curveSecret);
}

/** A bank-name lookup over the client's bank list (cached by the client), asked at background priority. */
export function bankNamesFrom(api: {
  getBanks(options?: { priority?: 'background' }): Promise<Array<{ code: string; name: string }>>;
}): (code: string) => Promise<string | undefined> {
  return async (code) => (await api.getBanks({ priority: 'background' })).find((b) => b.code === code)?.name;
}
