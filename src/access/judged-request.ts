// The request as the policy (policy.ts) judges it: only the fields that decide who may act on it. The
// full approval request is declared in the room above (approvals/types.ts) and fits this shape as it
// is; approvals/types.ts checks that at compile time, so access/ judges requests without importing
// approvals/ (.dependency-cruiser.cjs).
import type { RequestKind } from './kinds.js';

/** An approval as the policy counts it: who gave it, and in whose place when a delegate did. */
interface JudgedApproval {
  user: string;
  /** The approver whose place a delegate took; that approver then counts as having approved. */
  onBehalfOf?: string;
}

/** The payload fields the policy reads, for the kinds it reads them of. */
interface JudgedPayloads {
  /** Its delegate never approves it, nor does anyone once its window has ended. */
  delegation: { delegate: string; until: string };
  /** The approver who froze the sends never lifts the freeze. */
  unfreeze: { frozenBy: string };
  /** Whose passkey it registers: approved only while they are an approver or a live delegate. */
  passkey: { user: string };
}

type PayloadKind = keyof JudgedPayloads;

export type JudgedRequest = {
  requester: string;
  /** Decimal amount in Naira (canonical, 2 decimals), when the kind has one: a capped delegation covers it or not. */
  amount?: string;
  approvals: readonly JudgedApproval[];
} & (
  | { [K in PayloadKind]: { kind: K; payload: JudgedPayloads[K] } }[PayloadKind]
  | { kind: Exclude<RequestKind, PayloadKind> }
);
