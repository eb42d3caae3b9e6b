// What the audit log records: an entry, and the request's shape as an entry carries it (its state, the
// figures shown, the service's answer). The approval request (approvals/types.ts) is built on these.
import type { ApprovalEvidence, RequestKind } from '../access/index.js';

/** The service environment a request is filed for and only ever sent to. */
export type ServiceEnvironment = 'sandbox' | 'test' | 'live';

/** A person as the audit log records them: their name and e-mail, as far as the directory gives them. */
interface ActorDetails {
  name?: string | undefined;
  email?: string | undefined;
}

/** Who a user id is now (the Slack directory); may throw or be slow, the audit log bounds it. */
export type ActorDirectory = (userId: string) => Promise<ActorDetails>;
export type RequestState =
  | 'pending'
  | 'approved'
  | 'executing'
  | 'sent'
  | 'completed'
  | 'failed'
  | 'outcome-unknown'
  | 'rejected'
  | 'cancelled'
  | 'expired';

interface BridgeQuoteFigures {
  amountReceivable: string;
  networkFee: string;
  bridgeFee: string;
}

/** What approvers read; never sent to the service. Checked again at approval where it can go stale. */
export interface DisplayDetails {
  networkName?: string;
  originNetworkName?: string;
  destinationNetworkName?: string;
  bankName?: string;
  bankCode?: string;
  /** The account name the service resolved for this bank + account number. */
  accountName?: string;
  quote?: BridgeQuoteFigures;
}

export interface ExecutionOutcome {
  /** trxRef (withdraw, redeem) or reference (bridge). */
  reference?: string;
  transactionId?: string;
  /** Bridge: where the quoted amount has to be sent on the origin network. */
  receivableAddress?: string;
  /** Final service status text (`completed`, `failed`, …). */
  status?: string;
  reason?: string;
  /** Failed before anything reached the service, or refused by it before acting: nothing was sent. */
  nothingSent?: true;
  explorerLink?: string;
  hash?: string;
  /** When the service call started (ISO): the reconciler's time window opens here. */
  sentAt?: string;
}

/**
 * What an audit entry is about: a request's step, an alert set aside, the log itself (export, cut), the
 * freeze of sends (frozen, unfrozen), or the policy in effect (its settings at start, a user group's
 * members).
 */
type AuditKind = RequestKind | 'alert' | 'audit' | 'freeze' | 'policy';

/** One setting of the policy: words, or a set of user (U…/W…) and user group (S…) IDs, sorted. */
export interface PolicySetting {
  name: string;
  value: string | string[];
}

/** What a `policy` entry records (see policy-record.ts). */
interface PolicyRecordDetails {
  /** What changed, one line each (every setting, when the policy is recorded the first time). */
  changes: string[];
  /** The settings in effect at start and their fingerprint, so the next start compares against them. */
  settings?: PolicySetting[];
  fingerprint?: string;
  /** A user group's members as the bot saw them change, or (`members`) all of them as first read. */
  group?: string;
  members?: string[];
  added?: string[];
  removed?: string[];
}

/** The request's figures at the step: what will be (or was) sent, and what approvers were shown. */
interface AuditFigures {
  payload: Record<string, unknown>;
  display: DisplayDetails;
  /** What the requester said the payment is for. */
  purpose?: string;
  requiredApprovals: number;
  /**
   * How many approvals the request needed at this step, when the approval tiers asked more than
   * `requiredApprovals` (raised since filing): on an approval step, and on the step of an approved
   * request that waits again for them. The verifier judges a send by the most its chain recorded.
   */
  neededApprovals?: number;
  approvals: string[];
  /**
   * The passkey assertions the approvals were made with (docs/passkeys.md), and the round they signed:
   * with the entry's request id, kind, amount, environment and key, what an auditor needs to check each
   * one against the registered key. Absent where no approval was signed.
   */
  signatures?: Array<ApprovalEvidence & { user: string }>;
  round?: number;
}

/** The service's answer, once there is one. */
type AuditAnswer = Omit<ExecutionOutcome, 'sentAt'> & { sentAt?: string };

/**
 * One line of the append-only audit log. Entries written since the hash chain carry `seq`, `prev` and
 * `hash` (see chain.ts) and the figures; older ones have only the first fields.
 */
export interface AuditEntry {
  at: string;
  /** The request whose step this is; absent for entries about alerts or the log itself. */
  requestId?: string;
  kind: AuditKind;
  action: string;
  state?: RequestState;
  actor?: string;
  /**
   * The actor's name and e-mail as Slack gave them when the entry was written (absent on older entries,
   * entries of the system, and when Slack did not answer in time). The e-mail needs users:read.email.
   */
  actorName?: string;
  actorEmail?: string;
  /** The actor approved as a delegate, in this approver's place. */
  onBehalfOf?: string;
  amount?: string;
  note?: string;
  /** Index of the step in the request's history: a write that never reached the request is dropped on read. */
  step?: number;
  environment?: ServiceEnvironment;
  /** Non-reversible id of the API key the request was filed under. */
  keyId?: string;
  figures?: AuditFigures;
  answer?: AuditAnswer;
  /**
   * For alert and log entries: what they are about (a dead letter's id, an export's range). For a
   * request's step sent back because an approver left the pool: that approver's user id.
   */
  subject?: string;
  /**
   * A claim (`executing`) and a claim given back untaken (`claim-not-taken`): the claim's round and
   * generation (its claim key), so a hand-back names the one claim it gives back.
   */
  claim?: { round: number; generation: number };
  /** A retention cut: the last removed entry's place and hash (the log then starts after it). */
  cut?: { seq: number; hash: string; count: number };
  /**
   * An export: its time range and the newest chained entry when it was made (retention removes only
   * entries an export held).
   */
  exported?: { from?: string; to: string; lastSeq?: number };
  /** A policy entry: the settings in effect, or a user group's members, and what changed. */
  policy?: PolicyRecordDetails;
  /**
   * An approval step (`approval-added`, `approved`): the fingerprint of the settings that judged the
   * click, those of the newest policy entry before it with that `policy.fingerprint` (the verifier
   * never judges a step by settings recorded after it); absent where the bot recorded no settings.
   */
  policyFingerprint?: string;
  seq?: number;
  prev?: string;
  hash?: string;
}
