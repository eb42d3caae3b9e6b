// The stable codes of the approval domain's errors: a caller switches on `error.code`, never on a
// class name or a message; the surface turns a code into the sentence a person reads.

import { AUDIT_KEY_MISMATCH } from '../audit/index.js';

export const ApprovalErrorCode = {
  InvalidDraft: 'invalid_draft',
  LimitExceeded: 'limit_exceeded',
  SameRequest: 'same_request',
  UnfreezeRefused: 'unfreeze_refused',
  MaybeRecorded: 'maybe_recorded',
  AnswerNotRecorded: 'answer_not_recorded',
  InvalidTransition: 'invalid_transition',
  AuditKeyMismatch: AUDIT_KEY_MISMATCH,
  WriteRefused: 'write_refused',
  CustodyCallFailed: 'custody_call_failed',
  LimitIndexChanged: 'limit_index_changed',
  StaleRound: 'stale_round',
  PolicyNotRecorded: 'policy_not_recorded',
  PolicyNotOpened: 'policy_not_opened',
} as const;
export type ApprovalErrorCode = (typeof ApprovalErrorCode)[keyof typeof ApprovalErrorCode];

/** The codes of a draft refused before filing (InvalidDraftError and the refusals built on it). */
export type DraftRefusalCode =
  | typeof ApprovalErrorCode.InvalidDraft
  | typeof ApprovalErrorCode.LimitExceeded
  | typeof ApprovalErrorCode.SameRequest
  | typeof ApprovalErrorCode.UnfreezeRefused;
