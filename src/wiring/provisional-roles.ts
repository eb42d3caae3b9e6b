// PROVISIONAL: who holds which role until the configured role lists are wired. Reading and filing are
// open to every member (guests and bots are refused by the gate before this is asked); auditing and
// approving are for the approvers (CNGN_APPROVERS and its group), and approving also for delegates,
// who approve in an approver's place. The engine's own checks stay behind the gate.
import type { ApprovalPolicy } from '../approvals/index.js';
import type { Holders, Need, Roles } from '../approvals/roles.js';

const EVERYONE: Holders = { everyone: true, users: [], groups: [] };

/** `policy` absent (approvals not configured): nobody audits or approves. */
export function provisionalRoles(
  policy: ApprovalPolicy | undefined,
  approvers: readonly string[],
  approverGroup: string | undefined,
): Roles {
  const approverHolders: Holders = {
    everyone: false,
    users: policy ? approvers : [],
    groups: policy && approverGroup ? [approverGroup] : [],
  };
  return {
    async holds(user: string, need: Need): Promise<boolean> {
      if (need.role === 'reader' || need.role === 'requester') return true;
      if (!policy) return false;
      if (need.role === 'auditor') return policy.isApprover(user);
      if (await policy.isApprover(user)) return true;
      // A delegate passes while any delegation of theirs is on the books, so that the engine can say
      // why a click is refused (above the cap, window ended) rather than only that the role is missing.
      return (await policy.delegations()).some((delegation) => delegation.delegate === user);
    },
    async holders(need: Need): Promise<Holders> {
      return need.role === 'reader' || need.role === 'requester' ? EVERYONE : approverHolders;
    },
  };
}
