// What a /cngn subcommand declares to the command registry: its line in the help, the role it needs
// (the access gate checks it before the handler runs), the feature it needs when that feature may be
// left unconfigured, and the handler that answers.
import type { KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Need } from '../access/index.js';
import type { ApprovalEngine } from '../approvals/index.js';
import type { CngnApi } from '../cngn/api.js';
import type { Logger } from '../log.js';
import type { ReportSource } from '../reports/types.js';
import type { Store } from '../store/index.js';
import type { AlertPlacement } from '../webhooks/index.js';
import type { Deliveries } from './runtime/deliveries.js';
import type { InFlight } from './runtime/in-flight.js';

/** A message as the bot sends it: the fallback text and its blocks. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

/**
 * Who may use a subcommand, button, form or type-ahead: a role, or `anyone` (any member who is not a
 * guest or a bot). The help puts the role before the summary ("approvers: …"), except for anyone and
 * readers, whom every line is for.
 */
export type Who = 'anyone' | Need;

export const READERS: Need = { role: 'reader' };
export const REQUESTERS: Need = { role: 'requester' };
export const AUDITORS: Need = { role: 'auditor' };
/** What the filer of a request does to it (Cancel, Extend): requesters, and approvers who file too. */
export const FILERS: Need = { role: 'requester', approvers: true };
/** What only an approver in their own right does (freeze, unfreeze, resolve by hand): never a delegate. */
export const APPROVERS: Need = { role: 'approver' };
/**
 * Deciding on requests (approve, reject, review): approvers, and delegates while a delegation of theirs
 * is on the books; which requests each may decide is the engine's check.
 */
export const DECIDERS: Need = { role: 'approver', delegates: true };

/** One line of `/cngn help`. */
export interface HelpEntry {
  usage: string;
  /** What it does, in one line, without whom it is for (that is `who`). */
  summary: string;
  /** Unset: anyone. */
  who?: Who | undefined;
  /** One line to copy, without the leading `/cngn `. */
  example: string;
}

/** What a handler gets: the words after the subcommand's name, who asked, where, and a private reply. */
export interface CommandContext {
  args: string[];
  userId: string;
  /** The Slack install (workspace) the command came from. */
  teamId?: string;
  channelId: string;
  triggerId: string;
  client: WebClient;
  /** Answer privately through the command's response_url. */
  respond(message: SlackMessage): Promise<void>;
}

/** A feature a deployment may leave out; a subcommand needing it then answers that it is not configured. */
export type Feature = 'approvals' | 'policy' | 'deadLetters';

export interface Subcommand<D> extends HelpEntry {
  /** The word after `/cngn`, or two words for a sub-word (`audit verify`, `whitelist add`). */
  name: string;
  who: Who;
  /** Left out of the help because another entry's line shows it (whitelist's `[add]`). */
  inHelp?: false;
  /** The answer to send privately, or undefined when the handler answered itself (a modal). */
  run(command: CommandContext, deps: D): Promise<SlackMessage | undefined>;
}

/** A subcommand of a feature that may be left out: it runs with that feature's deps, when it is wired. */
export type FeatureSubcommand<F extends Feature, D> = Subcommand<D> & { needs: F };

/** Values to show again (prefill from arguments, or the form re-shown after a failed check). */
export type Prefill = Record<string, string | undefined>;

/** Field id → reason, shown under the field when a check after submission failed. */
export type FieldErrors = Record<string, string>;

/** What the wiring gives the approvals feature, and the features that act on its requests (freeze, delegate, audit, dead letters). */
export interface ApprovalSlackDeps {
  engine: ApprovalEngine;
  /** Where the Slack side keeps its own records (what a modal showed, deliveries). */
  store: Store;
  api: CngnApi;
  approvalsChannel: string;
  /** `SANDBOX`, `TEST` or `LIVE`: shown on every modal and list. */
  environmentLabel: string;
  /** Each delivery of a submission or command acts once, across replicas. */
  deliveries: Deliveries;
  now?: () => Date;
  log?: Pick<Logger, 'warn'> & Partial<Pick<Logger, 'error'>>;
  /** Why someone cannot be a delegate (a guest, a bot, deactivated, of another workspace); throws when Slack cannot say. */
  delegates?: { problem(user: string): Promise<string | undefined> };
  /** Whether Slack describes someone as able to act here (no guest, bot, deactivated or external account). */
  mayAct?: (user: string) => Promise<boolean>;
  /** Where approvers' browsers reach the passkey pages (CNGN_SIGNING_URL, else PUBLIC_URL); unset: nowhere. */
  signingUrl?: string | undefined;
  /** The link to a passkey page for a one-time token (slack/passkeys/links.ts over signingUrl); unset: none. */
  passkeyLink?: ((page: 'register' | 'sign', token: string) => string) | undefined;
}

/** What every subcommand that needs no optional feature runs with: the reads, deposits, reports. */
export interface ReadDeps {
  api: CngnApi;
  logger: Logger;
  now: () => Date;
  /** Where the alerts of a transaction are (webhooks' outbox); unset → /cngn tx does not say. */
  alerts?: ((references: Array<string | null | undefined>) => Promise<AlertPlacement[]>) | undefined;
  /** Where `/cngn report` gets its reports; unset → it says reports are not set up. */
  reports?: ReportDeps | undefined;
}

/** What the report's command and schedule are given: where a report comes from and how its delivery is run after the ack. */
export interface ReportDeps {
  source: ReportSource;
  now: () => Date;
  logger: Logger;
  /** Posts the report's parts, with Slack's own retries off (reportClient in delivery.ts). */
  client: WebClient;
  /** Delivery runs after the ack, here, so shutdown lets it finish. */
  inFlight?: InFlight | undefined;
  /** Fired when the bot stops: a report build under way stops reading and its DM says it failed. */
  stopping?: AbortSignal | undefined;
}
