// The bot's metrics in Prometheus terms: a registry of its own per bot (tests run many bots in one
// process), Node's default process metrics, counters the parts feed as things happen (increments
// only: nothing on a request's path waits for them), and gauges read from the store at scrape time.
// A read that fails leaves its gauges at their last good value and counts in
// cngn_store_read_failures_total: a gauge that turned NaN would resolve every alert on it just when the
// store fails (deploy/prometheus/ pages on cngn_store_up instead).
// The parts know nothing of Prometheus: each reports in its own words (an approval listener, a
// signing observer, a service-call observer, a fetch that sees Slack's answers, the webhook intake's
// result), and the wiring hands them what is here. docs/metrics.md lists every metric.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestKind } from '../access/index.js';
import type { ApprovalRequest, PasskeyPageRefusal, SigningEvent } from '../approvals/index.js';
import type { RequestState } from '../audit/index.js';
import type { ServiceCallError, ServiceCallObserver } from '../cngn/exchange.js';
import type { RateBudget } from '../cngn/limiter.js';
import type { Logger } from '../log.js';
import type { SlackApiCall } from '../slack/runtime/api-calls.js';
import { withinDeadline } from '../store/index.js';
import type { BuildInfo } from '../version.js';
import type { IntakeResult, OutboxBacklog } from '../webhooks/index.js';
import { approvalStep, type ClosedState, type SendResult } from './approval-steps.js';
import { pageRefusalCounter, signingCounters } from './signatures.js';

/** What the gauges read at each scrape. */
export interface MetricSources {
  /** Open approval requests of the bot's environment; absent when approvals are off. */
  openRequests?: (() => Promise<readonly ApprovalRequest[]>) | undefined;
  alertBacklog: () => Promise<OutboxBacklog>;
  /** Alerts set aside and not re-posted; absent without Slack (nothing is set aside then). */
  deadLetters?: (() => Promise<number>) | undefined;
  rateBudget: () => Promise<RateBudget>;
  /** Whether money movements are frozen in this environment; absent: never (`cngn_frozen` 0). */
  frozen?: (() => boolean | Promise<boolean>) | undefined;
  /** Whether the store answers a ping now. */
  storeUp: () => Promise<boolean>;
  /** Why the bot is not ready (what /readyz answers); empty when it is. */
  readiness: () => Promise<string[]>;
  /** The audit trail's last check: true whole, false broken, undefined not checked yet (or no approvals). */
  auditOk?: (() => boolean | undefined) | undefined;
  /** When the webhook reconciler last finished a pass (ms since the epoch); absent: no reconciler. */
  reconcilerLastSuccess?: (() => number | undefined) | undefined;
  /** Whether the Socket Mode connection is open; absent: HTTP mode (no such gauge). */
  socketConnected?: (() => boolean | undefined) | undefined;
}

export interface MetricsOptions {
  log: Logger;
  /** For the oldest alert's age (the outbox stamps entries with Date.now). */
  now?: () => number;
  /** How long a scrape waits for one store read before it counts as failed. */
  readTimeoutMs?: number;
  /** For cngn_build_info. */
  build?: BuildInfo;
}

const KIND_NAMES: Record<RequestKind, true> = {
  withdraw: true,
  redeem: true,
  bridge: true,
  whitelist: true,
  settlement: true,
  delegation: true,
  unfreeze: true,
  passkey: true,
};
const KINDS = Object.keys(KIND_NAMES) as RequestKind[];
const OPEN: readonly RequestState[] = ['pending', 'approved', 'executing', 'sent', 'outcome-unknown'];
const SEND_RESULTS: readonly SendResult[] = ['sent', 'completed', 'failed', 'outcome-unknown'];
const CLOSED: readonly ClosedState[] = ['completed', 'failed', 'rejected', 'cancelled', 'expired'];
const INTAKE_RESULTS: Record<IntakeResult, true> = {
  accepted: true,
  stale: true,
  duplicate: true,
  'no-secret': true,
  unsigned: true,
  'too-large': true,
  aborted: true,
  'bad-signature': true,
  'not-json': true,
  invalid: true,
  'store-unavailable': true,
  error: true,
};
const CALL_ERRORS: readonly ServiceCallError[] = ['network', 'rate-limited', 'server-error', 'refused'];
/** What the gauges read from the store, as cngn_store_read_failures_total names them. */
const READS = ['open approval requests', 'alert outbox', 'dead letters', 'rate budget', 'freeze'] as const;

/** Filing to final approval: a minute to two days. */
const APPROVAL_BUCKETS = [60, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 86_400, 172_800];
/** One exchange with the service: its timeouts are 5 s to connect and 15 s each for headers and body. */
const CALL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/** What the approval engine's steps count. */
interface ApprovalCounters {
  seconds: Histogram<'kind'>;
  sends: Counter<'kind' | 'result'>;
  closed: Counter<'kind' | 'state'>;
}

export class BotMetrics {
  readonly registry = new Registry();
  /** For the custody client: each exchange's duration and failure, by endpoint template. */
  readonly serviceCalls: ServiceCallObserver;
  /** For the approval engine's signing observer: signed approvals, and signatures refused (signatures.ts). */
  readonly signingEvent: (event: SigningEvent) => void;
  /** For the passkey pages: a link or registration they refused (signatures.ts). */
  readonly passkeyPageRefused: (reason: PasskeyPageRefusal) => void;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly readTimeoutMs: number;
  private sources: MetricSources | undefined;
  /** Reads under way in this scrape, by what they read: gauges that need the same read share it. */
  private readonly reads = new Map<string, Promise<unknown>>();

  private readonly approvalSeconds: Histogram<'kind'>;
  private readonly sends: Counter<'kind' | 'result'>;
  private readonly closed: Counter<'kind' | 'state'>;
  private readonly slackCalls: Counter<'method'>;
  private readonly slackErrors: Counter<'method' | 'error'>;
  private readonly slackRateLimited: Counter<'method'>;
  private readonly intake: Counter<'result'>;
  private readonly readFailures: Counter<'read'>;
  /** Endpoints and Slack methods seen, each given its zero series once. */
  private readonly seen = new Set<string>();

  constructor(options: MetricsOptions) {
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.readTimeoutMs = options.readTimeoutMs ?? 2_000;
    collectDefaultMetrics({ register: this.registry });
    // prom-client lists and collects the metrics in the order they are made here.
    this.botGauges(options.build);
    const approvals = this.approvalMetrics();
    this.approvalSeconds = approvals.seconds;
    this.sends = approvals.sends;
    this.closed = approvals.closed;
    this.signingEvent = signingCounters(this.registry, KINDS);
    this.passkeyPageRefused = pageRefusalCounter(this.registry);
    this.alertGauges();
    this.serviceCalls = this.serviceMetrics();
    const slack = this.slackAndWebhookCounters();
    this.slackCalls = slack.calls;
    this.slackErrors = slack.errors;
    this.slackRateLimited = slack.rateLimited;
    this.intake = slack.intake;
    this.frozenGauge();
    // Last: prom-client collects every metric at once, in this order, so the gauges' reads of this
    // scrape are under way when this waits for them, and a failure counts in the same scrape.
    this.readFailures = this.readFailureCounter();
  }

  /** The bot itself: its build, and whether the store answers and the bot is ready. */
  private botGauges(build: BuildInfo | undefined): void {
    const metrics = this;
    const registers = [this.registry];
    if (build) {
      new Gauge({
        name: 'cngn_build_info',
        help: 'Always 1: the version, the commit it was built from and the Node.js it runs on, as labels.',
        labelNames: ['version', 'commit', 'node'] as const,
        registers,
      }).set({ version: build.version, commit: build.commit, node: build.node }, 1);
    }
    new Gauge({
      name: 'cngn_store_up',
      help: 'Whether the store answered a ping at this scrape: 1 yes, 0 no.',
      registers,
      async collect() {
        const up = await metrics.sources?.storeUp().catch(() => false);
        if (up !== undefined) this.set(up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'cngn_ready',
      help: 'Whether the bot is ready (what /readyz answers): 1 yes, 0 no.',
      registers,
      async collect() {
        const reasons = await metrics.sources?.readiness().catch(() => ['unknown']);
        this.set(reasons && reasons.length === 0 ? 1 : 0);
      },
    });
  }

  /** A gauge read from the store (or a source) at each scrape; left as it was when the read failed. */
  private storeGauge(name: string, help: string, read: () => Promise<number | undefined>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        const value = await read();
        if (value !== undefined) this.set(value);
      },
    });
  }

  /** Approvals: the open requests read at each scrape, and what the engine's steps count. */
  private approvalMetrics(): ApprovalCounters {
    const metrics = this;
    const registers = [this.registry];
    new Gauge({
      name: 'cngn_approval_requests',
      help: 'Open approval requests of this environment by kind and state (read from the store: all replicas).',
      labelNames: ['kind', 'state'] as const,
      registers,
      async collect() {
        const open = await metrics.openRequests();
        if (open === undefined) return;
        this.reset();
        for (const kind of KINDS) for (const state of OPEN) this.set({ kind, state }, 0);
        for (const request of open) this.inc({ kind: request.kind, state: request.state });
      },
    });
    this.storeGauge(
      'cngn_approval_oldest_pending_age_seconds',
      'Age of the oldest approval request waiting for approvers; 0 when none waits.',
      async () => {
        const open = metrics.sources?.openRequests ? await metrics.openRequests() : [];
        if (!open) return undefined;
        const filed = open.filter((r) => r.state === 'pending').map((r) => Date.parse(r.createdAt));
        const oldest = Math.min(...filed.filter((t) => Number.isFinite(t)));
        return Number.isFinite(oldest) ? Math.max(0, (metrics.now() - oldest) / 1000) : 0;
      },
    );
    new Gauge({
      name: 'cngn_audit_ok',
      help: "The audit trail's last check: 1 whole, 0 broken (see /healthz); 1 until the first check.",
      registers,
      collect() {
        this.set(metrics.sources?.auditOk?.() === false ? 0 : 1);
      },
    });
    this.storeGauge(
      'cngn_approval_outcome_unknown',
      'Approval requests whose service call may or may not have happened: the reconciler or a person must settle them.',
      async () => {
        const open = metrics.sources?.openRequests ? await metrics.openRequests() : [];
        return open?.filter((r) => r.state === 'outcome-unknown').length;
      },
    );
    return this.approvalCounters();
  }

  /** What the approval engine's steps count, each series made at zero. */
  private approvalCounters(): ApprovalCounters {
    const registers = [this.registry];
    const seconds = new Histogram({
      name: 'cngn_approval_time_to_approval_seconds',
      help: 'Time from filing an approval request to its final approval.',
      labelNames: ['kind'] as const,
      buckets: APPROVAL_BUCKETS,
      registers,
    });
    const sends = new Counter({
      name: 'cngn_approval_sends_total',
      help: 'Service calls of approved requests by their immediate result: sent, completed, failed or outcome-unknown.',
      labelNames: ['kind', 'result'] as const,
      registers,
    });
    const closed = new Counter({
      name: 'cngn_approval_requests_closed_total',
      help: 'Approval requests that reached a final state (completed, failed, rejected, cancelled, expired) in this process.',
      labelNames: ['kind', 'state'] as const,
      registers,
    });
    for (const kind of KINDS) {
      for (const result of SEND_RESULTS) sends.inc({ kind, result }, 0);
      for (const state of CLOSED) closed.inc({ kind, state }, 0);
    }
    return { seconds, sends, closed };
  }

  /** Alerts: the outbox's depth and oldest entry, and the alerts set aside. */
  private alertGauges(): void {
    const backlog = () => this.shared('alert outbox', () => this.need().alertBacklog());
    this.storeGauge(
      'cngn_alert_outbox_depth',
      'Alerts accepted and not yet posted to Slack (read from the store: all replicas).',
      async () => (await backlog())?.depth,
    );
    this.storeGauge(
      'cngn_alert_oldest_undelivered_age_seconds',
      'Age of the oldest alert not yet posted to Slack; 0 when none waits.',
      async () => {
        const read = await backlog();
        if (!read) return undefined;
        if (!read.oldestEnqueuedAt) return 0;
        return Math.max(0, (this.now() - Date.parse(read.oldestEnqueuedAt)) / 1000);
      },
    );
    this.storeGauge(
      'cngn_alert_dead_letters',
      'Alerts Slack refused, set aside and not re-posted (see /cngn deadletters).',
      async () => {
        const count = this.need().deadLetters;
        return count ? await this.shared('dead letters', count) : 0;
      },
    );
  }

  /** The service: its rate budget, and each exchange's duration and failure, by endpoint template. */
  private serviceMetrics(): ServiceCallObserver {
    const registers = [this.registry];
    this.storeGauge(
      'cngn_rate_budget_used_ratio',
      "Share of the service's request budget (CNGN_RATE_LIMIT) taken now, 0 to 1, shared by every replica; 1 while the key is blocked after a 429.",
      async () => {
        const budget = await this.shared('rate budget', () => this.need().rateBudget());
        if (!budget) return undefined;
        return budget.blockedForSeconds > 0 ? 1 : budget.used / budget.limit;
      },
    );
    const callSeconds = new Histogram({
      name: 'cngn_service_call_duration_seconds',
      help: 'Each HTTP exchange with the custody service, retries one by one, by endpoint.',
      labelNames: ['endpoint'] as const,
      buckets: CALL_BUCKETS,
      registers,
    });
    const callErrors = new Counter({
      name: 'cngn_service_call_errors_total',
      help: 'Exchanges with the custody service that failed, by endpoint and error: network, rate-limited, server-error, refused.',
      labelNames: ['endpoint', 'error'] as const,
      registers,
    });
    return {
      exchanged: (endpoint, seconds) => {
        if (this.firstSight(`endpoint ${endpoint}`)) {
          for (const error of CALL_ERRORS) callErrors.inc({ endpoint, error }, 0);
        }
        callSeconds.observe({ endpoint }, seconds);
      },
      failed: (endpoint, error: ServiceCallError) => callErrors.inc({ endpoint, error }),
    };
  }

  /** Slack's Web API answers, and the webhook intake's results. */
  private slackAndWebhookCounters(): {
    calls: Counter<'method'>;
    errors: Counter<'method' | 'error'>;
    rateLimited: Counter<'method'>;
    intake: Counter<'result'>;
  } {
    const registers = [this.registry];
    const calls = new Counter({
      name: 'cngn_slack_api_calls_total',
      help: 'Slack Web API answers by method, errors and 429s included.',
      labelNames: ['method'] as const,
      registers,
    });
    const errors = new Counter({
      name: 'cngn_slack_api_errors_total',
      help: "Slack Web API calls that failed, by method and error (Slack's code, http_<status>, timeout, request_failed).",
      labelNames: ['method', 'error'] as const,
      registers,
    });
    const rateLimited = new Counter({
      name: 'cngn_slack_api_rate_limited_total',
      help: 'Slack Web API answers of HTTP 429 (rate-limited), by method.',
      labelNames: ['method'] as const,
      registers,
    });
    const intake = new Counter({
      name: 'cngn_webhook_intake_total',
      help: 'Webhook deliveries from the service by result: accepted, stale (a possible replay), duplicate, or why refused.',
      labelNames: ['result'] as const,
      registers,
    });
    for (const result of Object.keys(INTAKE_RESULTS) as IntakeResult[]) intake.inc({ result }, 0);
    return { calls, errors, rateLimited, intake };
  }

  /** Whether money movements are frozen in this environment. */
  private frozenGauge(): void {
    this.storeGauge(
      'cngn_frozen',
      'Whether money movements are frozen in this environment: 1 frozen, 0 not.',
      async () => {
        const read = this.sources?.frozen;
        const value = read ? await this.shared('freeze', async () => read()) : false;
        return value === undefined ? undefined : value ? 1 : 0;
      },
    );
  }

  /** Failed or late store reads of the gauges; its collect waits for this scrape's reads. */
  private readFailureCounter(): Counter<'read'> {
    const metrics = this;
    const failures = new Counter({
      name: 'cngn_store_read_failures_total',
      help: 'Store reads for the gauges that failed or were late, by what they read; the gauges then keep their last good value.',
      labelNames: ['read'] as const,
      registers: [this.registry],
      async collect() {
        await Promise.allSettled([...metrics.reads.values()]);
      },
    });
    for (const read of READS) failures.inc({ read }, 0);
    return failures;
  }

  /** The sources the gauges read at each scrape; until given, those gauges have no reading. */
  watch(sources: MetricSources): void {
    this.sources = sources;
    const { socketConnected, reconcilerLastSuccess } = sources;
    if (reconcilerLastSuccess) {
      new Gauge({
        name: 'cngn_reconciler_last_success_timestamp_seconds',
        help: 'When the webhook reconciler last finished a pass in this process (Unix time); 0 before the first.',
        registers: [this.registry],
        collect() {
          const at = reconcilerLastSuccess();
          this.set(at === undefined ? 0 : at / 1000);
        },
      });
    }
    if (socketConnected) {
      new Gauge({
        name: 'cngn_slack_socket_connected',
        help: 'Socket Mode only: whether the connection to Slack is open, 1 yes, 0 no.',
        registers: [this.registry],
        collect() {
          this.set(socketConnected() === true ? 1 : 0);
        },
      });
    }
  }

  /** True the first time `what` is seen (its zero series are made then). */
  private firstSight(what: string): boolean {
    if (this.seen.has(what)) return false;
    this.seen.add(what);
    return true;
  }

  /** For the approval engine's onChange: what one persisted step means in counts. */
  readonly approvalChanged = async (request: ApprovalRequest): Promise<void> => {
    const step = approvalStep(request);
    if (!step) return;
    const { kind } = request;
    if (step.approvedAfterSeconds !== undefined)
      this.approvalSeconds.observe({ kind }, step.approvedAfterSeconds);
    if (step.sendResult) this.sends.inc({ kind, result: step.sendResult });
    if (step.closedAs) this.closed.inc({ kind, state: step.closedAs });
  };

  /** For the Slack clients' fetch (see observedFetch). */
  readonly slackCall = (call: SlackApiCall): void => {
    const { method } = call;
    if (this.firstSight(`method ${method}`)) this.slackRateLimited.inc({ method }, 0);
    this.slackCalls.inc({ method });
    if (call.rateLimited) this.slackRateLimited.inc({ method });
    if (call.error) this.slackErrors.inc({ method, error: call.error });
  };

  /** For the webhook intake. */
  readonly webhookIntake = (result: IntakeResult): void => {
    this.intake.inc({ result });
  };

  /** Open approval requests; undefined when approvals are off or the read failed. */
  private openRequests(): Promise<readonly ApprovalRequest[] | undefined> {
    const read = this.sources?.openRequests;
    return read ? this.shared('open approval requests', read) : Promise.resolve(undefined);
  }

  private need(): MetricSources {
    if (!this.sources) throw new Error('the bot is still starting');
    return this.sources;
  }

  /**
   * A store read for the gauges, bounded, and shared by the gauges of one scrape that need it
   * (prom-client collects them all at once); undefined, counted and logged, when it fails or is late.
   */
  private shared<T>(what: (typeof READS)[number], work: () => Promise<T>): Promise<T | undefined> {
    const under = this.reads.get(what) as Promise<T | undefined> | undefined;
    if (under) return under;
    const read = withinDeadline(Promise.resolve().then(work), this.readTimeoutMs, what)
      .catch((error: unknown) => {
        this.readFailures.inc({ read: what });
        this.log.warn('a metric could not be read', {
          metric: what,
          error: error instanceof Error ? error.message : String(error),
        });
        return undefined;
      })
      .finally(() => this.reads.delete(what));
    this.reads.set(what, read);
    return read;
  }
}
