// What the approvals room offers the rest of the bot: the engine (approval-engine.ts), and the types,
// words and helpers its callers use. Nothing else is imported from outside this folder, except
// engine-parts.ts by tests (.dependency-cruiser.cjs).
export { ApprovalEngine, type ApprovalEngineOptions } from './approval-engine.js';
export { approversCounted } from './approvals-needed.js';
export { CONFLICT_ACTION } from './conflicts.js';
export {
  delegationOf,
  ENDED_NOTE_START,
  REVOKED_ACTION,
  WITHDRAWN_ACTION,
  WITHDRAWN_NOTE_START,
} from './delegation-requests.js';
export { FREEZE_REASON_MAX, FREEZE_REASON_MIN, InvalidDraftError, purposeProblem } from './draft.js';
export { PolicyNotRecorded } from './engine-audit.js';
export type { ApprovalReadiness } from './engine-questions.js';
export { ApprovalErrorCode } from './error-codes.js';
export { type ExtendResult, fullDuration, originalLifetimeMs, shortDuration } from './extend.js';
export { figuresDigest } from './figures.js';
export type { FileConfirmations, FileResult, FilingProblem } from './file-checked.js';
export { type FreezeChange, heldByFreeze } from './freeze.js';
export { chainUnreadable } from './freeze-chain.js';
export { PolicyNotOpened } from './judging-policy.js';
export { logFreezeChanges, logLifecycle } from './lifecycle-log.js';
export { DEFAULT_LIMIT_WINDOW_MS, type LimitSettings, type LimitUse } from './limits.js';
export { PasskeyBook, type PasskeyPageRefusal } from './passkey-book.js';
export { PASSKEY_REVOKED_ACTION } from './passkey-requests.js';
export type { UnfreezePayload } from './payloads.js';
export { type PolicySnapshot, policySnapshot, signedApprovalsText } from './policy-record.js';
export { POLICY_RECORDED } from './policy-recorder.js';
export { settingWords } from './policy-words.js';
export { BALANCE_KINDS } from './preflight.js';
export { MaybeRecordedError } from './recheck.js';
export { STOP_DRAIN_MS } from './recording.js';
export { DEFAULT_REMINDERS, isLastReminder, parseReminderPoints, type ReminderPoint } from './reminders.js';
export { ApprovalRepository } from './repository.js';
export { StaleRoundError } from './round.js';
export { NEEDS_A_PERSON_NOTES, needsAPerson } from './send-checks.js';
export { EVIDENCE_FAILED, type SigningEvent, type SigningRefusal } from './signed-approvals.js';
export {
  CONFLICT_RESOLVED,
  HELD_ACTION,
  LOOKED_UP_BEFORE_SENDING,
  noticeText,
  SENDING_UNCLEAR_ACTION,
} from './state-machine.js';
export { STOP_NOT_CHECKED_ACTION, STOPPED_BUT_FOUND_ACTION } from './stop-lookup.js';
export { TIERS_RAISED_ACTION } from './tiers-raised.js';
export { leftToAPersonByTheLookup } from './transaction-match.js';
export {
  type ActionResult,
  type ApprovalRequest,
  type ApproveOptions,
  type BalanceCheck,
  type ClickOptions,
  type EngineLog,
  FINAL_STATES,
  type Freeze,
  type LimitFigures,
  type LookAlikeMark,
  OPEN_STATES,
  type Refusal,
  type RejectOptions,
  type RequestChecks,
  type RequestDraft,
  type RequestOf,
  type SameRequestMark,
} from './types.js';
