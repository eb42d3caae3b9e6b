// Builds the approvals engine and its Slack side from settled configuration, so start-up and the
// test harness wire it the same way: engine, listeners, the bridge callback route, the webhook subscriber.
import { setTimeout as sleep } from 'node:timers/promises';
import type { App, CustomRoute } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { ApprovalPolicy, type ApprovalTier, parseTiers, type RoleBook } from '../access/index.js';
import {
  ApprovalEngine,
  type LimitSettings,
  type PolicySnapshot,
  type ReminderPoint,
  STOP_DRAIN_MS,
} from '../approvals/index.js';
import {
  type AuditSeal,
  AuditSigner,
  auditStateFiles,
  HeadMarks,
  loadOrCreateSigningKey,
  parseSigningKey,
} from '../audit/index.js';
import type { CngnApi } from '../cngn/api.js';
import { environmentFromKey } from '../cngn/credentials.js';
import { custodyGateway, custodyReport } from '../cngn/custody-gateway.js';
import type { WebhookEvent } from '../cngn/schemas.js';
import { type ApprovalNotify, type Config, ConfigError } from '../config.js';
import type { Logger } from '../log.js';
import { ApprovalDms } from '../slack/approvals/dms.js';
import { HomePublisher } from '../slack/approvals/home/publisher.js';
import { registerHome } from '../slack/approvals/home/register.js';
import type { ApprovalPresenter } from '../slack/approvals/presenter.js';
import { handleBridgeCallback, presenterClient, registerApprovals } from '../slack/approvals/register.js';
import { registerApprovalReminders } from '../slack/approvals/reminders.js';
import { auditAlarmMessage, undeliveredExportNotice } from '../slack/audit/blocks.js';
import { policyChangedMessage } from '../slack/audit/policy-blocks.js';
import { DelegateVetting } from '../slack/delegation/membership.js';
import { tellDelegates } from '../slack/delegation/notices.js';
import { tellFreeze } from '../slack/freeze/notices.js';
import { Deliveries } from '../slack/runtime/deliveries.js';
import type { Installed } from '../slack/runtime/installed.js';
import { barred, People } from '../slack/runtime/people.js';
import type { ApprovalSlackDeps } from '../slack/types.js';
import type { Store } from '../store/index.js';
import type { RecentAlerts } from '../webhooks/recent.js';

export interface ApprovalsSetup {
  store: Store;
  api: CngnApi;
  approvalsChannel: string;
  /** CNGN_ALERTS_CHANNEL: a request the service contradicted itself about is also told there. */
  alertsChannel?: string | undefined;
  /** The roles and approver pools (wiring/roles.ts); the policy asks the pools, sharing their group cache. */
  roles: RoleBook;
  /** `0:1,1000000:2` or already parsed. */
  tiers: string | readonly ApprovalTier[];
  ttlMs: number;
  /** CNGN_LIMIT_WINDOW and CNGN_DAILY_LIMIT (default: a 24 h window, no daily limit). */
  limits?: LimitSettings | undefined;
  /** CNGN_APPROVAL_REMINDERS, parsed; none given: no reminders. */
  reminders?: readonly ReminderPoint[] | undefined;
  auditRetentionMs?: number | undefined;
  /** The settings in effect, recorded in the audit chain at start when they changed (see policy-inputs.ts). */
  policySnapshot?: PolicySnapshot | undefined;
  /** The audit signing key and this process's marks (see auditSealFor). */
  auditSeal?: AuditSeal | undefined;
  /** CNGN_AUDIT_ARCHIVE's folder and CNGN_AUDIT_ARCHIVE_EVERY (written only with a seal). */
  auditArchive?: { dir: string; everyMs: number } | undefined;
  publicUrl?: string | undefined;
  /** CNGN_APPROVAL_NOTIFY (default both). */
  notify?: ApprovalNotify | undefined;
  /** The last alerts, shown on App Home. */
  alerts?: RecentAlerts | undefined;
  /** App Home: a burst of changes for one person within this is one publish. */
  homeDebounceMs?: number | undefined;
  now?: () => Date;
  /** Debug lines too when the logger has them (an audit entry's actor Slack could not name in time). */
  log?: (ApprovalSlackDeps['log'] & Partial<Pick<Logger, 'debug'>>) | undefined;
}

export interface Approvals {
  engine: ApprovalEngine;
  /** Who holds which role (the same book the Slack gate asks). */
  roles: RoleBook;
  /** Who may approve what. */
  policy: ApprovalPolicy;
  deps: ApprovalSlackDeps;
  /** Register listeners on the app and present changes through its client. */
  plugin: (app: App) => void;
  /** Keeps the approval messages current; set once the plugin has run. */
  presenter: ApprovalPresenter | undefined;
  /** Approvers' DMs (unless CNGN_APPROVAL_NOTIFY=channel); set once the plugin has run. */
  dms: ApprovalDms | undefined;
  /** App Home; set once the plugin has run. */
  home: HomePublisher | undefined;
  /** The people the bot meets (users.info, kept briefly); set once the plugin has run. */
  people: People | undefined;
  /** Delegates vetted at filing, and their delegations ended once they may no longer act; set by the plugin. */
  vetting: DelegateVetting | undefined;
  /** `POST /callbacks/bridge/:token` */
  bridgeCallback: (token: string, rawBody: string) => Promise<{ status: number; body: string }>;
  /** For the webhook pipeline. */
  subscriber: (event: WebhookEvent) => Promise<void>;
}

const BRIDGE_CALLBACK_PATH = '/callbacks/bridge/:token';

export function createApprovals(setup: ApprovalsSetup): Approvals {
  const policy = new ApprovalPolicy({
    approvers: [],
    tiers: typeof setup.tiers === 'string' ? parseTiers(setup.tiers) : setup.tiers,
    pools: setup.roles.pools,
  });
  // Audit entries name their actor as Slack does at the time; before the app exists, by id only.
  const engine = engineFor(setup, policy, () => approvals.people);
  // A change to a user group's members changes who may do what: it goes into the audit chain.
  setup.roles.groups.onMembershipChange((group, added, removed) => {
    void engine.recordMembershipChange(group, added, removed).catch((error: unknown) => {
      setup.log?.warn('could not record a change of user group members', { group, error: String(error) });
    });
  });
  const deps: ApprovalSlackDeps = {
    store: setup.store,
    engine,
    api: setup.api,
    approvalsChannel: setup.approvalsChannel,
    environmentLabel: setup.api.environment.toUpperCase(),
    deliveries: new Deliveries(setup.store),
    ...(setup.now ? { now: setup.now } : {}),
    ...(setup.log ? { log: setup.log } : {}),
  };
  const approvals: Approvals = {
    engine,
    roles: setup.roles,
    policy,
    deps,
    presenter: undefined,
    dms: undefined,
    home: undefined,
    people: undefined,
    vetting: undefined,
    plugin: (app) => registerAll(app, approvals, setup),
    bridgeCallback: (token, rawBody) => handleBridgeCallback(deps, token, rawBody),
    // The webhook pipeline's subscriber: matches the event's references to a request and settles it.
    subscriber: (event) => engine.onCustodyReport(custodyReport(event)),
  };
  return approvals;
}

function engineFor(
  setup: ApprovalsSetup,
  policy: ApprovalPolicy,
  people: () => People | undefined,
): ApprovalEngine {
  return new ApprovalEngine({
    actorLookup: {
      directory: async (id) => {
        const person = await people()?.lookup(id);
        return person ? { name: person.name, email: person.email } : {};
      },
      log: setup.log,
    },
    store: setup.store,
    custody: custodyGateway(setup.api),
    policy,
    ttlMs: setup.ttlMs,
    ...(setup.limits ? { limits: setup.limits } : {}),
    ...(setup.reminders ? { reminderPoints: setup.reminders } : {}),
    ...(setup.auditRetentionMs ? { auditRetentionMs: setup.auditRetentionMs } : {}),
    ...(setup.auditSeal ? { auditSeal: setup.auditSeal } : {}),
    ...(setup.policySnapshot ? { policySnapshot: setup.policySnapshot } : {}),
    ...(setup.auditArchive ? { auditArchive: setup.auditArchive } : {}),
    ...(setup.publicUrl ? { publicUrl: setup.publicUrl } : {}),
    ...(setup.now ? { now: setup.now } : {}),
    ...(setup.log ? { log: setup.log } : {}),
  });
}

/** The plugin: vetting of delegates, the listeners, what keeps messages, DMs and Home current, the notices. */
function registerAll(app: App, approvals: Approvals, setup: ApprovalsSetup): void {
  const { engine, deps } = approvals;
  approvals.people ??= new People(app.client);
  approvals.vetting = new DelegateVetting({ engine, people: approvals.people, log: setup.log });
  deps.delegates = approvals.vetting;
  deps.mayAct = (user) => mayAct(approvals.people, user);
  approvals.vetting.start();
  const notify = setup.notify ?? 'both';
  approvals.presenter = registerApprovals(app, deps, setup.store, {
    approverButtons: notify !== 'dm',
    alertsChannel: setup.alertsChannel,
  });
  const client = presenterClient(app);
  const common = {
    engine,
    client,
    store: setup.store,
    ...(setup.now ? { now: setup.now } : {}),
    ...(setup.log ? { log: setup.log } : {}),
  };
  if (notify !== 'channel') {
    approvals.dms = new ApprovalDms({ ...common, mayAct: deps.mayAct });
    approvals.dms.listen();
    void approvals.dms.recover();
  }
  approvals.home = new HomePublisher({
    ...common,
    api: setup.api,
    alerts: setup.alerts,
    roles: setup.roles,
    mayAct: deps.mayAct,
    ...(setup.homeDebounceMs !== undefined ? { debounceMs: setup.homeDebounceMs } : {}),
  });
  approvals.home.listen();
  registerHome(app, approvals.home, setup.log);
  registerApprovalReminders(app, deps, setup.store);
  tellDelegates(engine, client, setup.store, deps.mayAct, setup.log);
  tellFreeze(engine, client, setup.approvalsChannel, () => approvals, setup.log);
  tellAuditNews(engine, client, setup.approvalsChannel, deps.environmentLabel);
}

/** What the audit trail tells: a break, a policy change, an export a crash left undelivered. */
function tellAuditNews(engine: ApprovalEngine, client: WebClient, channel: string, label: string): void {
  // A break in the audit trail (found at start, daily, or by an append) is told in the approvals channel.
  engine.onAuditAlarm(async (check, incidents) => {
    await client.chat.postMessage({ channel, ...auditAlarmMessage(check, incidents, label) });
  });
  // A policy change, once in the audit chain, is told in the approvals channel.
  engine.onPolicyRecorded(async (entry) => {
    await client.chat.postMessage({ channel, ...policyChangedMessage(entry, label) });
  });
  // An audit export a crash interrupted: the asker hears, by DM, that it was not delivered.
  engine.onUndeliveredAuditExport(async (record) => {
    await client.chat.postMessage({ channel: record.actor, ...undeliveredExportNotice(record, label) });
  });
}

/**
 * Approvals as the start-up wiring lists it: the bridge callback route, the listeners, and a stop that
 * gives executions under way what is left of the drain bound (at least a second) from `stopBegan`,
 * then finishes approval messages and DMs already under way (bounded) before the store closes.
 */
export function installApprovals(approvals: Approvals | undefined, stopBegan: () => number): Installed {
  if (!approvals) return {};
  return {
    routes: [
      rawBodyRoute(BRIDGE_CALLBACK_PATH, (params, body) =>
        approvals.bridgeCallback(params.token ?? '', body),
      ),
    ],
    listeners: approvals.plugin,
    stop: async () => {
      // Left loudly, well before main's forced exit: an answer the store will not take is logged, not lost.
      const drainMs = Math.max(1_000, STOP_DRAIN_MS - (Date.now() - stopBegan()));
      await approvals.engine.stop({ drainMs });
      approvals.home?.stop();
      approvals.vetting?.stop();
      approvals.presenter?.stop();
      const presenting = Promise.all([
        approvals.presenter?.idle(),
        approvals.dms?.idle(),
        approvals.home?.idle(),
      ]);
      await Promise.race([presenting, sleep(10_000, undefined, { ref: false })]);
    },
  };
}

/** A POST route given its body as text (16 KiB at most: more is refused with 413). */
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

/** Someone Slack describes as able to act here; when Slack cannot say, not taken as one. */
async function mayAct(people: People | undefined, user: string): Promise<boolean> {
  if (!people) return false;
  try {
    return !barred(await people.lookup(user));
  } catch {
    return false;
  }
}

/**
 * The audit signing key (CNGN_AUDIT_SIGNING_KEY, or the one made beside the store) and the file of this
 * process's head marks; undefined on a memory store without a key (nothing is signed).
 */
export function auditSealFor(config: Config, log?: Pick<Logger, 'info' | 'warn'>): AuditSeal | undefined {
  const state = auditStateFiles(config.storeUrl);
  let signer: AuditSigner | undefined;
  if (config.auditSigningKey) {
    signer = new AuditSigner(parseSigningKey(config.auditSigningKey.pem), config.auditSigningKey.origin);
  } else if (state) {
    const refusal = keyMakingRefused(config);
    const made = loadOrCreateSigningKey(
      state.keyFile,
      refusal
        ? () => {
            throw new ConfigError([`CNGN_AUDIT_SIGNING_KEY_FILE: required ${refusal}`]);
          }
        : undefined,
    );
    if (made.created) {
      log?.info('made an audit signing key; back it up, and keep it out of the store', {
        file: state.keyFile,
        publicKey: made.signer.publicKey,
      });
    }
    signer = made.signer;
  }
  const warn = log
    ? (message: string, fields: Record<string, unknown>) => log.warn(message, fields)
    : undefined;
  return signer ? { signer, marks: new HeadMarks(state?.marksFile, warn) } : undefined;
}

/**
 * Why the bot must not make its own audit signing key, or undefined when it may. A key made on one
 * host's disk goes with that disk: a new container, host or replica would make another, and the chain
 * in the shared store would then be signed with a key no process has (every start fails). A live key
 * moves real money, so its audit key is one the operator keeps, whatever the store.
 */
function keyMakingRefused(config: Config): string | undefined {
  const shared = /^(postgres|postgresql|redis|rediss):\/\//.exec(config.storeUrl)?.[1];
  const live = config.service.mode === 'service' && environmentFromKey(config.service.apiKey) === 'live';
  if (!shared && !live) return undefined;
  const why = shared ? `on a ${shared}:// store, which replicas share` : 'with a live CNGN_API_KEY';
  return `${why}: the bot makes no audit signing key there (one made on this disk is lost with the container, and each replica would make its own). Make one (openssl genpkey -algorithm ed25519 -out audit-signing-key.pem), keep a copy, and give every replica the same file (docs/rotation.md#the-audit-signing-key)`;
}
