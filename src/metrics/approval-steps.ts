// What one persisted step of an approval request counts for: the listener hears every change once,
// after it is stored, and the newest history entry says what happened. A step that keeps the state (a
// notice, an approval that is not yet the last) counts for nothing.
import { type ApprovalRequest, FINAL_STATES } from '../approvals/index.js';
import type { RequestState } from '../audit/index.js';

export type SendResult = 'sent' | 'completed' | 'failed' | 'outcome-unknown';
export type ClosedState = 'completed' | 'failed' | 'rejected' | 'cancelled' | 'expired';

export interface ApprovalStepCounts {
  /** The final approval: seconds since the request was filed. */
  approvedAfterSeconds?: number;
  /** The service call of an approved request came back (or may have gone out: outcome-unknown). */
  sendResult?: SendResult;
  /** It reached a final state. */
  closedAs?: ClosedState;
}

const SEND_RESULTS: ReadonlySet<RequestState> = new Set(['sent', 'completed', 'failed', 'outcome-unknown']);

/** The counts of the request's newest step; undefined when it changed no state. */
export function approvalStep(request: ApprovalRequest): ApprovalStepCounts | undefined {
  const step = request.history.at(-1);
  const before = request.history.at(-2)?.state;
  if (!step || before === undefined || before === request.state) return undefined;
  const counts: ApprovalStepCounts = {};
  // pending → approved is only ever the last approval needed (the engine's withApproval).
  if (before === 'pending' && request.state === 'approved') {
    const seconds = (Date.parse(step.at) - Date.parse(request.createdAt)) / 1000;
    if (Number.isFinite(seconds)) counts.approvedAfterSeconds = Math.max(0, seconds);
  }
  // Only a claim that made the call leaves executing for these; executing → approved sent nothing.
  if (before === 'executing' && SEND_RESULTS.has(request.state)) {
    counts.sendResult = request.state as SendResult;
  }
  if (FINAL_STATES.has(request.state)) counts.closedAs = request.state as ClosedState;
  return counts;
}
