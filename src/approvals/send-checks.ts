// The approvals checked just before the one service call, in order: every counted approval's
// signature where one is needed (signed-approvals.ts), as many approvals as the tiers ask for
// (approvals-needed.ts), and, where signatures are needed, the request's filing seal (request-seal.ts),
// so that the requester and the count judged above are the ones filed. Undefined: it may be sent.
import type { ApprovalPolicy } from '../access/index.js';
import { approvalsShort } from './approvals-needed.js';
import type { SendChecks } from './signed-approvals.js';
import type { ApprovalRequest } from './types.js';

/** The note the request fails with (nothing sent), or undefined when its approvals hold. */
export async function approvalsProblem(
  signed: SendChecks,
  tiers: Pick<ApprovalPolicy, 'requiredFor'>,
  request: ApprovalRequest,
): Promise<string | undefined> {
  return (
    (await signed.problemAtSend(request)) ??
    approvalsShort(request, tiers) ??
    signed.filingSealProblem(request)
  );
}
