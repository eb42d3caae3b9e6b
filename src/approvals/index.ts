// What the approvals folder offers the rest of the bot: the engine (approval-engine.ts), and the
// types, words and helpers its callers use.

export { ApprovalEngine, type ApprovalEngineOptions } from './approval-engine.js';
export { ACTOR_LOOKUP_MS, type ActorLookup } from './audit-actors.js';
export type { ArchiveOutcome } from './audit-archive.js';
export type { BreakKind, ChainBreak, ChainReport } from './audit-chain.js';
export type { AuditExportRecord } from './audit-exports.js';
export {
  type AuditAlarmListener,
  type AuditCheck,
  type AuditHealth,
  AuditKeyMismatch,
  type AuditProblem,
  type AuditProblemKind,
} from './audit-keeper.js';
export { type AuditDraft, HEAD_UNVERIFIED } from './audit-log.js';
export {
  type AuditSeal,
  AuditSigner,
  HeadMarks,
  loadOrCreateSigningKey,
  parseSigningKey,
} from './audit-signing.js';
export { CONFLICT_ACTION } from './conflicts.js';
export {
  type Delegation,
  delegationOf,
  isLive,
  MAX_DELEGATION_MS,
  REVOKED_ACTION,
} from './delegations.js';
export {
  FREEZE_REASON_MAX,
  FREEZE_REASON_MIN,
  type InvalidDraftError,
  PURPOSE_MAX,
  PURPOSE_MIN,
  purposeProblem,
} from './draft.js';
export type { ApprovalListener, EngineOptions } from './engine.js';
export type { AuditExportAsk } from './engine-audit.js';
export type { ApprovalReadiness } from './engine-questions.js';
export { ApprovalErrorCode, type DraftRefusalCode } from './error-codes.js';
export { STOP_DRAIN_MS } from './executor.js';
export {
  type ExtendRefusal,
  type ExtendResult,
  originalLifetimeMs,
  shortDuration,
} from './extend.js';
export { figuresDigest } from './figures.js';
export type { FileConfirmations, FileResult, FilingProblem } from './file-checked.js';
export {
  type FreezeChange,
  type FreezeListener,
  type FreezeResult,
  heldByFreeze,
  START_FROZEN_ACTOR,
} from './freeze.js';
export type { FreezeRefusal } from './freeze-commands.js';
export { GROUP_CACHE_MS, GroupMembers, type GroupMembersOptions, type MembershipChange } from './groups.js';
export {
  DEFAULT_LIMIT_WINDOW_MS,
  LimitExceededError,
  type LimitSettings,
  type LimitUse,
} from './limits.js';
export { differingRanges, findLookAlike, type LookAlike } from './look-alike.js';
export type * from './payloads.js';
export {
  ApprovalPolicy,
  type ApprovalTier,
  countedPeople,
  parseTiers,
  requiredApprovals,
} from './policy.js';
export {
  describeChanges,
  describePolicy,
  fingerprint,
  membershipLine,
  type PolicyInputs,
  type PolicySnapshot,
  policySnapshot,
} from './policy-record.js';
export {
  POLICY_ACTOR,
  POLICY_CHANGED,
  POLICY_RECORDED,
  type PolicyRecordListener,
} from './policy-recorder.js';
export {
  ApproverPools,
  holdersOf,
  type PoolSettings,
  type SlackIds,
  unionOf,
} from './pools.js';
export * from './ports.js';
export { BALANCE_KINDS, BALANCE_TRUSTED_MS, type FileOptions } from './preflight.js';
export { MaybeRecordedError } from './recheck.js';
export {
  DEFAULT_REMINDERS,
  isLastReminder,
  parseReminderPoints,
  type ReminderPoint,
  reminderTimes,
} from './reminders.js';
export { RoleBook, type RoleLists, type RoleSummary } from './role-book.js';
export type { Holders, Need, Role, Roles } from './roles.js';
export { type SeenRound, StaleRoundError } from './round.js';
export { SAME_REQUEST_MS, SameRequestError } from './same-request.js';
export { failedCallOutcome } from './service-call.js';
export {
  CONFLICT_RESOLVED,
  canTransition,
  HELD_ACTION,
  InvalidTransitionError,
  LOOKED_UP_BEFORE_SENDING,
  noticeText,
} from './state-machine.js';
export type { BridgeCallbackHint } from './tracker.js';
export type * from './types.js';
export { REQUEST_KINDS } from './types.js';
