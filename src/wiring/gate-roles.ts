// What the access gate asks: the configured roles (wiring/roles.ts), where a delegate also passes where
// deciding on requests is asked (a need with `delegates`) while any delegation of theirs is on the
// books, so that the engine can say why a click is refused (above the cap, window ended, another kind)
// rather than only that the role is missing. A delegate whose delegation is live, from someone still an
// approver in their own right, also reads what the approvers read (App Home, `/cngn pending` and its
// Review all) and cancels or extends what they filed (their passkey registration), as they act in an
// approver's place; App Home asks the same (delegateReads). What only an approver in their own right
// does (freeze, unfreeze, resolve) a delegate never passes, as the engine would refuse it anyway.

import { isLive, type RoleBook, type Roles } from '../access/index.js';
import type { ApprovalEngine } from '../approvals/index.js';

type Delegations = Pick<ApprovalEngine, 'delegations' | 'now'>;

export function gateRoles(book: RoleBook, engine: Delegations | undefined): Roles {
  const reads = delegateReads(book, engine);
  return {
    async holds(user, need) {
      if (await reads.holds(user, need)) return true;
      if (need.role !== 'approver' || !need.delegates || !engine) return false;
      return (await engine.delegations()).some((delegation) => delegation.delegate === user);
    },
    holders: (need) => book.holders(need),
  };
}

/**
 * The roles as the book holds them, where a live delegate of an approver (in their own right) also
 * reads, and files what a filer cancels or extends.
 */
export function delegateReads(book: RoleBook, engine: Delegations | undefined): Roles {
  return {
    async holds(user, need) {
      if (await book.holds(user, need)) return true;
      const delegatesToo = need.role === 'reader' || (need.role === 'requester' && need.approvers);
      return Boolean(delegatesToo) && engine !== undefined && (await actsForAnApprover(book, engine, user));
    },
    holders: (need) => book.holders(need),
  };
}

/** Whether a delegation to `user` is live, from someone still an approver in their own right. */
async function actsForAnApprover(book: RoleBook, engine: Delegations, user: string): Promise<boolean> {
  const now = engine.now();
  for (const delegation of await engine.delegations())
    if (delegation.delegate === user && isLive(delegation, now))
      if (await book.holds(delegation.delegator, { role: 'approver' })) return true;
  return false;
}
