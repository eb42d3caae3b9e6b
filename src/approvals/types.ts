// The approval request: what was asked, exactly what will be sent, who approved, and where it is in
// its life. Stored as JSON in the store, so every field is plain data (amounts as decimal strings).

import {
  type ApprovalEvidence,
  type JudgedRequest,
  REQUEST_KINDS,
  type RefusalReason,
  type RequestKind,
  type SignatureRefusal,
} from '../access/index.js';
import type {
  AuditEntry,
  DisplayDetails,
  ExecutionOutcome,
  PolicySetting,
  RequestState,
  ServiceEnvironment,
} from '../audit/index.js';
import type { Logger } from '../log.js';
import type { PayloadOf } from './payloads.js';

export type { AuditEntry, ExecutionOutcome, PolicySetting, RequestKind, RequestState };
// The kinds and the request's shape as the audit log records it live below (access/, audit/); they
// are part of the request's vocabulary, so they are named here too.
export { REQUEST_KINDS };

/** The kinds that move money through the service (and so an amount, limits, a paid destination). */
export const MONEY_KINDS: ReadonlySet<RequestKind> = new Set<RequestKind>(['withdraw', 'redeem', 'bridge']);

/** Sends frozen: who froze them, why, and since when (ISO). See freeze.ts. */
export interface Freeze {
  /** A Slack user id, or the start-up's own name when CNGN_START_FROZEN froze them. */
  by: string;
  reason: string;
  at: string;
}

/**
 * The balance against this request: the cNGN balance as read (and when), what approved or sent
 * requests already commit of it that the figure does not show yet, and what is left after this one.
 * Amounts are canonical decimal text; `after` may be negative.
 */
export interface BalanceCheck {
  balance: string;
  asOf: string;
  committed: string;
  /** How many requests make up `committed`. */
  committedCount: number;
  amount: string;
  after: string;
  /** `after` is zero or more. */
  enough: boolean;
}

/** A destination that looks like a known one: both in full, and where they differ (index ranges of `candidate`). */
export interface LookAlikeMark {
  candidate: string;
  known: string;
  differs: Array<[number, number]>;
  /** Why `known` is known: paid before, or on the service's whitelist. */
  knownAs: 'paid' | 'whitelisted';
  /** The requester ticked "I compared the whole address" when filing. */
  compared?: boolean;
  /**
   * False when the request's tier already needs every approver who may approve it, so no one more
   * can be asked; unset: it needs one more distinct approver than its tier.
   */
  extra?: false;
}

/**
 * What the bot checked before a request was filed, without moving money; stored on the request so
 * every place it is shown says the same without reading the service. A check that could not be made
 * is absent, with the reason in `unread` when it was tried.
 */
export interface RequestChecks {
  at: string;
  /** Withdrawals and redemptions: what the custody balance holds for them. */
  balance?: BalanceCheck;
  network?: { name: string; enabled: boolean };
  /** The address as shown (EIP-55 checksummed for EVM) and what was checked of it. */
  address?: { shown: string; checked: 'checksum' | 'format' };
  /** On the service's whitelist (for its network). */
  whitelisted?: boolean;
  /** Never paid before by this business (bot's records and the service's transaction list). */
  firstPayment?: boolean;
  lookAlike?: LookAlikeMark;
  /** Another request of the same kind, amount and destination (same-request.ts), as the form found it. */
  sameAs?: SameRequestMark;
  /** Checks that could not be made, in words (`balance: the service is busy`). */
  unread?: string[];
}

/** Another request of the same kind, amount and destination, filed, waiting or sent in the last 24 h. */
export interface SameRequestMark {
  id: string;
  /** Where it was: not sent yet (waiting, approved, being sent), sent (or settled), or sent unknown. */
  state: 'pending' | 'sent' | 'outcome-unknown';
  /** When it was filed (pending) or its call began (sent, outcome unknown). */
  at: string;
  /** The requester was shown it and said to file this one too (the form's box). */
  confirmed?: boolean;
}

/** Requests to the same destination the engine found when it filed this one (same-request.ts). */
export interface EarlierRequests {
  /** The latest of the same kind, amount and destination. */
  same?: SameRequestMark;
  /** The first filed to the same destination that is not sent yet: a first payment is that one's. */
  unsent?: { id: string; at: string };
}

/**
 * Which total in the limit window chose the request's tier, when a total did rather than its own
 * amount: its requester's, or its destination's, including this request (see limits.ts).
 */
export interface TierBasis {
  by: 'requester' | 'destination';
  /** Canonical decimal ₦ total, this request included. */
  total: string;
  /** CNGN_LIMIT_WINDOW when the request was filed. */
  windowMs: number;
}

/** Why a request would pass the daily limit (CNGN_DAILY_LIMIT): the figures a person is shown. */
export interface LimitFigures {
  /**
   * What already counts in the window (canonical decimal ₦): at filing, everything sent or on the
   * way (waiting for approval too); at a final approval, only what is approved or further on.
   */
  used: string;
  limit: string;
  /** This request's amount. */
  amount: string;
  windowMs: number;
  stage: 'filing' | 'approval';
}

interface Approval {
  /** The person who approved (each person counts once). */
  user: string;
  at: string;
  /** The approver whose place a delegate took; that approver then counts as having approved. */
  onBehalfOf?: string;
  /**
   * With `onBehalfOf`: the delegation it was given through (the id of its granting request), read by
   * that id before sending (approver-left.ts). Approvals recorded before it was kept have none.
   */
  delegationId?: string;
  /** The passkey assertion it was made with, when it had to be signed (signed-approvals.ts). */
  evidence?: ApprovalEvidence;
}

export interface HistoryEntry {
  at: string;
  /** The state after this step. */
  state: RequestState;
  action: string;
  actor?: string;
  /** An approval a delegate gave: the approver in whose place the actor approved. */
  onBehalfOf?: string;
  note?: string;
  /**
   * A step sent back because an approval it counted was given for this person, who has left the kind's
   * pool since (approver-left.ts): shown as a mention beside the note, which never holds markup.
   */
  leftPool?: string;
  /**
   * An approval step (`approval-added`, `approved`): the fingerprint of the settings that judged the
   * click (policy-record.ts), which the audit chain held before the step.
   */
  policyFingerprint?: string;
  /**
   * An approval step, or the step of an approved request waiting again (`tiers-raised`): how many
   * approvals the request needed then, when the tiers asked more than its stored count. Its audit
   * entry records it, and the verifier judges the send by the most the chain recorded.
   */
  needed?: number;
  /** A reminder step: which point of the plan it was, and the approvers it went to. */
  reminder?: ReminderStep;
}

export interface ReminderStep {
  /** 1-based place of the point in the plan, and how many points it has. */
  point: number;
  of: number;
  /** The share of the lifetime as configured (`50%`). */
  share: string;
  /** Eligible approvers who had not acted, reminded by name. */
  waiting: string[];
  /** Approvals still needed when it was sent. */
  needed: number;
}

/** The one Extend a requester may make: when, how long, and the expiry it replaced. */
interface Extension {
  at: string;
  actor: string;
  byMs: number;
  /** The expiry before the Extend; the original lifetime is `previousExpiresAt - createdAt`. */
  previousExpiresAt: string;
}

/** A report from the service that contradicts what it said before, or the request itself. */
interface ServiceConflict {
  at: string;
  /** The report's identity (event, ids, status, amount): the same report again is not counted twice. */
  key: string;
  /** The sentence people read, starting "Conflicting reports from the service:". */
  note: string;
}

/** Who is making the service call, and until when that holds unless renewed (replicas share the store). */
interface ExecutionLease {
  owner: string;
  leaseUntil: string;
  /** Which generation of the round's claim this owner holds (a takeover claims the next one). */
  generation: number;
  /**
   * The write-ahead mark. `claimed`: the call has certainly not been made, so a claim whose holder
   * stopped may be handed to the next claimant. `sending`: recorded just before the call, which may
   * have gone out since. A lease without it (written before the mark existed) counts as `sending`.
   */
  phase?: 'claimed' | 'sending';
}

interface RequestBase {
  id: string;
  /** The service environment it was filed for; it is only ever sent there. */
  environment: ServiceEnvironment;
  /** Non-reversible id of the API key it was filed under, when the engine knows it. */
  keyId?: string;
  /** Decimal amount in Naira (canonical, 2 decimals); absent for whitelist, settlement, delegation, unfreeze. */
  amount?: string;
  display: DisplayDetails;
  /** What the payment is for, as the requester typed it (withdraw, redeem, bridge; absent on older requests). */
  purpose?: string;
  requester: string;
  approvals: Approval[];
  requiredApprovals: number;
  // Tiers raised since filing may ask more: approvalsNeeded works that out at each reading (the engine's
  // approvalsShown for what people see). Records written before hold it as `neededNow`, read by nothing.
  /** Set when a total in the limit window, not the amount alone, chose the tier (`requiredApprovals`). */
  tierBasis?: TierBasis;
  state: RequestState;
  createdAt: string;
  expiresAt: string;
  /** Incremented each time the request goes back to the approvers; keys the execution claim. */
  round: number;
  /** Why it went back to the approvers, or why it was rejected. */
  reason?: string;
  outcome?: ExecutionOutcome;
  /**
   * Where the request was announced to the approvers (a channel and the message's id in it), so each
   * step updates that message in place. Records stored before the name changed carry it as
   * `slackMessage`: the repository reads that name too (see fromStored in repository.ts).
   */
  announcement?: { channel: string; ts: string };
  /** Unguessable token of the bridge completion callback URL. */
  callbackToken?: string;
  /** Set while a call is being made (state executing). */
  execution?: ExecutionLease;
  /**
   * The claim last handed back (approved again, certainly unsent), written with that step: its holder
   * can never send, so the round's next claim ends it when ending it did not land (hand-back.ts).
   */
  handedBack?: { round: number; generation: number };
  /** An approver's final click whose re-check of stale figures is under way. */
  checking?: { user: string; at: string; onBehalfOf?: string; evidence?: ApprovalEvidence };
  /** Set once the requester used their one Extend. */
  extended?: Extension;
  /** Reports from the service that contradict each other or the request: a person must check. */
  conflicts?: ServiceConflict[];
  /** What the bot checked before filing it (balance, network, address, whitelist, destination). */
  preflight?: RequestChecks;
  /** Other requests to its destination when it was filed: the same payment again, or one not sent yet. */
  earlier?: EarlierRequests;
  /** Next time the tracker may poll or reconcile this request (ISO), and how often it tried (the wait grows with it). */
  nextCheckAt?: string;
  checks?: number;
  /** Of those tries, the checks the service answered (a person is asked after enough of them). */
  answeredChecks?: number;
  /**
   * The bot's seal over the request as filed (request-seal.ts): the audit signing key's signature over
   * its id, kind, requester, amount, payload, approvals needed, filing time and key.
   */
  sealed?: { key: string; value: string };
  history: HistoryEntry[];
}

/**
 * The policy (access/policy.ts) judges requests as a JudgedRequest, a narrow shape of its own below
 * this room: every request must fit it, and this alias fails to compile when one does not (a field it
 * reads renamed or retyped here).
 */
type JudgedAs<R extends JudgedRequest> = R;

export type ApprovalRequest = JudgedAs<
  {
    [K in RequestKind]: RequestBase & { kind: K; payload: PayloadOf[K] };
  }[RequestKind]
>;

export type RequestOf<K extends RequestKind> = Extract<ApprovalRequest, { kind: K }>;

/** What a requester files; the engine adds id, tiers, expiry and state. */
export type RequestDraft = {
  [K in RequestKind]: {
    kind: K;
    payload: PayloadOf[K];
    amount?: string;
    display: DisplayDetails;
    /** Required for withdraw, redeem and bridge (3–140 characters); no other kind has one. */
    purpose?: string;
    requester: string;
  };
}[RequestKind];

export const OPEN_STATES: ReadonlySet<RequestState> = new Set([
  'pending',
  'approved',
  'executing',
  'sent',
  'outcome-unknown',
]);

export const FINAL_STATES: ReadonlySet<RequestState> = new Set([
  'completed',
  'failed',
  'rejected',
  'cancelled',
  'expired',
]);

/** Why a person's click changed nothing: the policy's reasons (access/policy.ts), and the engine's own. */
export type Refusal =
  | RefusalReason
  | 'not-found'
  | 'not-pending'
  /** Claimed for its one service call (or past it): too late to reject or cancel. */
  | 'already-sending'
  /** Approved: only an approver in their own right may reject it now, not a delegate. */
  | 'delegate-after-approval'
  | 'expired'
  | 'checking'
  | 'not-requester'
  | 'recheck-failed'
  | 'not-unknown'
  /** Its outcome is read from the bot's own store, by the bot: no person resolves it. */
  | 'settled-by-the-bot'
  /** The balance last read, less what is committed, does not cover the request. */
  | 'insufficient-balance'
  /** The final approval would take what is sent in the window past CNGN_DAILY_LIMIT. */
  | 'over-daily-limit'
  /** It must be signed with the approver's passkey (CNGN_SIGNED_APPROVALS) and was not. */
  | 'signature-required'
  /** The signature's one-time challenge was used already (a replayed assertion) or expired. */
  | 'challenge-used'
  /** The assertion does not hold (access/signatures.ts). */
  | SignatureRefusal;

export type ActionResult =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; reason: Refusal; request?: ApprovalRequest; error?: unknown; limit?: LimitFigures };

/** How a person's click is taken: bounded, and told as soon as its decision is persisted. */
export interface ClickOptions {
  /** Once aborted, no write of this click starts (it is answered "try again" and changes nothing). */
  signal?: AbortSignal;
  /**
   * When (Date.now()) the signal aborts: the click's wait for the request's lock ends then, so one that
   * can no longer write takes no turn from one that still can.
   */
  writeBy?: number;
  /**
   * Called just before a write of this click starts: an error from then on may come after the write
   * landed, so the person is told it may have been recorded, never that nothing changed.
   */
  onWriting?: () => void;
  /**
   * Called once the click's decision is persisted (or needed no write), before anyone is told. With
   * `rechecking`, only the final approver's hold is saved: the approval itself is saved after the
   * service re-check of its figures, so the person is told it is under way.
   */
  onRecorded?: (step?: { rechecking: true }) => void;
}

/**
 * An approval as the approver gave it: the click, and what they were shown. Both are required: it
 * counts only for `round`, and only for the figures whose digest (figuresDigest of the request they
 * saw) is `figuresDigest`. Either refused by throwing StaleRoundError (round.ts), nothing changed.
 */
export interface ApproveOptions extends ClickOptions {
  round: number;
  figuresDigest: string;
  /** The approver's passkey assertion, where the approval must be signed (signed-approvals.ts). */
  evidence?: ApprovalEvidence;
}

/**
 * A rejection as the rejecter gave it: the click, and the round of the request they saw (required).
 * A rejection of another round is refused by throwing StaleRoundError (round.ts), nothing changed.
 */
export interface RejectOptions extends ClickOptions {
  round: number;
}

/** Warnings always; the steps of a payment at info when the logger takes them (see lifecycle-log.ts). */
export type EngineLog = Pick<Logger, 'warn'> & Partial<Pick<Logger, 'info' | 'error'>>;
