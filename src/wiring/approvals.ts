// Builds the approvals engine and what it needs from settled configuration, so start-up and the test
// harness wire it the same way: engine, policy, the webhook subscriber, and the deps handed to the Slack
// features that install approvals, delegations, freezes and the audit trail's news (slack/<feature>/install.ts).
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { ApprovalPolicy, type ApprovalTier, parseTiers, type RoleBook } from '../access/index.js';
import {
  ApprovalEngine,
  type LimitSettings,
  type PolicySnapshot,
  type ReminderPoint,
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
import { type ApprovalNotify, type Config, ConfigError, type SigningConfig } from '../config.js';
import type { Logger } from '../log.js';
import type { ApprovalDms } from '../slack/approvals/dms.js';
import type { HomePublisher } from '../slack/approvals/home/publisher.js';
import { installApprovals } from '../slack/approvals/install.js';
import type { ApprovalPresenter } from '../slack/approvals/presenter.js';
import { presenterClient } from '../slack/approvals/register.js';
import { installAuditNotices } from '../slack/audit/install.js';
import { installDelegateNotices, installDelegateVetting } from '../slack/delegation/install.js';
import type { DelegateVetting } from '../slack/delegation/membership.js';
import { installFreezeNotices } from '../slack/freeze/install.js';
import { passkeyPageLink } from '../slack/passkeys/links.js';
import { Deliveries } from '../slack/runtime/deliveries.js';
import type { Installed } from '../slack/runtime/installed.js';
import { People } from '../slack/runtime/people.js';
import type { ApprovalSlackDeps } from '../slack/types.js';
import type { Store } from '../store/index.js';
import type { RecentAlerts } from '../webhooks/recent.js';
import { delegateReads } from './gate-roles.js';

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
  /** CNGN_SIGNING_URL: where browsers reach the passkey pages (default PUBLIC_URL). */
  signingUrl?: string | undefined;
  /** CNGN_SIGNED_APPROVALS with the WebAuthn relying party and origin; absent: approvals are clicks. */
  signing?: SigningConfig | undefined;
  /** CNGN_APPROVAL_NOTIFY (default both). */
  notify?: ApprovalNotify | undefined;
  /** The last alerts, shown on App Home. */
  alerts?: RecentAlerts | undefined;
  /** App Home: a burst of changes for one person within this is one publish. */
  homeDebounceMs?: number | undefined;
  /** How often the engine sweeps (expiry, polls, reconciliation, reminders); default 15 s. */
  sweepMs?: number | undefined;
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
  /**
   * What the start-up wiring lists for approvals, in order: the delegate vetting, approvals (with the
   * bridge callback route), the delegate notices, the freeze notices, the audit trail's news.
   */
  installs: (stopBegan: () => number) => Installed[];
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
  /** The audit signing key and this process's marks, when the audit is signed (closed at a stop). */
  auditSeal: AuditSeal | undefined;
  /** For the webhook pipeline. */
  subscriber: (event: WebhookEvent, unreadable: readonly string[], delivery: string) => Promise<void>;
}

/** The passkey pages' links under the signing URL (the review's signing link, `/cngn passkey`'s); none without one. */
function passkeyLinks(signingUrl: string | undefined): ApprovalSlackDeps['passkeyLink'] {
  return signingUrl ? (page, token) => passkeyPageLink(signingUrl, page, token) : undefined;
}

export function createApprovals(setup: ApprovalsSetup): Approvals {
  const policy = new ApprovalPolicy({
    approvers: [],
    tiers: typeof setup.tiers === 'string' ? parseTiers(setup.tiers) : setup.tiers,
    pools: setup.roles.pools,
  });
  // Audit entries name their actor as Slack does at the time; before the app exists, by id only.
  const engine = engineFor(setup, policy, () => approvals.people);
  // A change to the members of a user group an approver pool names changes who may approve: it goes
  // into the audit chain, and so do the members first read after a start (when they differ from those
  // last recorded). Groups only the other roles name (readers, say) are not the verifier's business.
  const approving = (group: string) => setup.roles.pools.groupIds().includes(group);
  setup.roles.groups.onMembershipChange((group, added, removed) => {
    if (!approving(group)) return;
    void engine.recordMembershipChange(group, added, removed).catch((error: unknown) => {
      setup.log?.warn('could not record a change of user group members', { group, error: String(error) });
    });
  });
  setup.roles.groups.onFirstRead((group, members) => {
    if (!approving(group)) return;
    void engine.recordGroupMembers(group, members).catch((error: unknown) => {
      setup.log?.warn('could not record the members of a user group', { group, error: String(error) });
    });
  });
  const deps: ApprovalSlackDeps = {
    store: setup.store,
    engine,
    api: setup.api,
    approvalsChannel: setup.approvalsChannel,
    environmentLabel: setup.api.environment.toUpperCase(),
    deliveries: new Deliveries(setup.store),
    // The pages are served only while signing is on (wiring/bot.ts): no link to them otherwise.
    signingUrl: setup.signing ? (setup.signingUrl ?? setup.publicUrl) : undefined,
    passkeyLink: passkeyLinks(setup.signing ? (setup.signingUrl ?? setup.publicUrl) : undefined),
    ...(setup.now ? { now: setup.now } : {}),
    ...(setup.log ? { log: setup.log } : {}),
  };
  const approvals: Approvals = {
    engine,
    auditSeal: setup.auditSeal,
    roles: setup.roles,
    policy,
    deps,
    presenter: undefined,
    dms: undefined,
    home: undefined,
    people: undefined,
    vetting: undefined,
    installs: (stopBegan) => installsOf(approvals, setup, stopBegan),
    // The webhook pipeline's subscriber: matches the event's references to a request and settles it.
    subscriber: (event, unreadable, delivery) =>
      engine.onCustodyReport(custodyReport(event, unreadable, delivery)),
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
    ...(setup.sweepMs ? { tickMs: setup.sweepMs } : {}),
    ...(setup.auditRetentionMs ? { auditRetentionMs: setup.auditRetentionMs } : {}),
    ...(setup.auditSeal ? { auditSeal: setup.auditSeal } : {}),
    ...(setup.policySnapshot ? { policySnapshot: setup.policySnapshot } : {}),
    ...(setup.auditArchive ? { auditArchive: setup.auditArchive } : {}),
    ...(setup.publicUrl ? { publicUrl: setup.publicUrl } : {}),
    ...(setup.signing ? { signing: setup.signing } : {}),
    ...(setup.now ? { now: setup.now } : {}),
    ...(setup.log ? { log: setup.log } : {}),
  });
}

/**
 * Approvals' Slack side as the start-up wiring lists it, in the order the listeners go in (and the
 * reverse one they stop in): delegates are vetted before an approval listener hears a change, the
 * delegate's DMs, the freeze notices and the audit trail's news after them. The vetting stops with the
 * engine (see installApprovals).
 */
function installsOf(approvals: Approvals, setup: ApprovalsSetup, stopBegan: () => number): Installed[] {
  const { engine, deps } = approvals;
  const people = (app: App) => (approvals.people ??= new People(app.client));
  let presenting: WebClient | undefined;
  const client = (app: App) => (presenting ??= presenterClient(app));
  const log = setup.log;
  return [
    installDelegateVetting({ engine, people, approvals: deps, slot: approvals, log }),
    installApprovals({
      engine,
      slack: deps,
      surfaces: approvals,
      client,
      store: setup.store,
      api: setup.api,
      roles: delegateReads(setup.roles, engine),
      alertsChannel: setup.alertsChannel,
      notify: setup.notify,
      alerts: setup.alerts,
      homeDebounceMs: setup.homeDebounceMs,
      now: setup.now,
      log,
      stopBegan,
    }),
    installDelegateNotices({ engine, client, store: setup.store, mayAct: () => deps.mayAct, log }),
    installFreezeNotices({
      engine,
      client,
      approvalsChannel: setup.approvalsChannel,
      surfaces: () => approvals,
      log,
    }),
    installAuditNotices({
      engine,
      client,
      approvalsChannel: setup.approvalsChannel,
      environmentLabel: deps.environmentLabel,
    }),
  ];
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
