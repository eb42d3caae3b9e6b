// "Waiting for you": the requests a person may approve now (pending, not expired, and the policy lets
// them: never their own, never one they already count on; a delegate's within their delegation). App
// Home and `/cngn pending`'s Review all ask this one question, so the two never disagree about who may
// approve what.
import type { ApprovalEngine, Delegation } from '../../approvals/index.js';
import type { ApprovalRequest } from '../../approvals/types.js';

export async function waitingFor(
  engine: ApprovalEngine,
  user: string,
  now: Date,
  open?: readonly ApprovalRequest[],
  read?: readonly Delegation[],
): Promise<ApprovalRequest[]> {
  const policy = engine.core.options.policy;
  const delegations = read ?? (await policy.delegations()); // read once for the whole list
  const waiting: ApprovalRequest[] = [];
  for (const request of open ?? (await engine.openRequests())) {
    if (request.state !== 'pending' || Date.parse(request.expiresAt) <= now.getTime()) continue;
    if ((await policy.check(request, user, delegations)).allowed) waiting.push(request);
  }
  return waiting;
}
