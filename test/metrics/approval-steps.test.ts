// What each step of an approval request counts for in the metrics: the last approval with the time
// since filing, a service call's result, a final state; steps that keep the state count for nothing.
import { describe, expect, it } from 'vitest';
import { transition, withApproval } from '../../src/approvals/state-machine.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { approvalStep } from '../../src/metrics/approval-steps.js';

const FILED_AT = new Date('2026-11-02T09:00:00.000Z');
const at = (minutes: number) => new Date(FILED_AT.getTime() + minutes * 60_000);

function filed(requiredApprovals = 1): ApprovalRequest {
  return {
    id: 'AR-TEST',
    kind: 'withdraw',
    payload: { amount: '2500.00', address: '0xabc', networkId: 'n1', shouldSaveAddress: false },
    environment: 'sandbox',
    amount: '2500.00',
    display: {},
    requester: 'UREQ',
    approvals: [],
    requiredApprovals,
    state: 'pending',
    createdAt: FILED_AT.toISOString(),
    expiresAt: at(24 * 60).toISOString(),
    round: 0,
    history: [{ at: FILED_AT.toISOString(), state: 'pending', action: 'filed', actor: 'UREQ' }],
  };
}

const executing = (request: ApprovalRequest, minutes: number) =>
  transition(request, 'executing', { action: 'executing', at: at(minutes) });

describe('approval steps in the metrics', () => {
  it('counts nothing for filing or an approval that is not the last', () => {
    const request = filed(2);
    expect(approvalStep(request)).toBeUndefined();
    expect(approvalStep(withApproval(request, 'UA', at(5)))).toBeUndefined();
  });

  it('times the last approval from filing', () => {
    const first = withApproval(filed(2), 'UA', at(5));
    expect(approvalStep(withApproval(first, 'UB', at(30)))).toEqual({ approvedAfterSeconds: 1800 });
  });

  it("counts a call's result once it leaves executing, and a final state as closed", () => {
    const calling = executing(withApproval(filed(), 'UA', at(1)), 2);
    expect(approvalStep(calling)).toEqual({});
    const sent = transition(calling, 'sent', { action: 'sent', at: at(3) });
    expect(approvalStep(sent)).toEqual({ sendResult: 'sent' });
    expect(approvalStep(transition(sent, 'completed', { action: 'completed', at: at(9) }))).toEqual({
      closedAs: 'completed',
    });
    const unknown = transition(calling, 'outcome-unknown', { action: 'outcome-unknown', at: at(3) });
    expect(approvalStep(unknown)).toEqual({ sendResult: 'outcome-unknown' });
    expect(approvalStep(transition(calling, 'failed', { action: 'failed', at: at(3) }))).toEqual({
      sendResult: 'failed',
      closedAs: 'failed',
    });
  });

  it('counts a rejection as closed and nothing as sent', () => {
    expect(approvalStep(transition(filed(), 'rejected', { action: 'rejected', at: at(4) }))).toEqual({
      closedAs: 'rejected',
    });
  });
});
