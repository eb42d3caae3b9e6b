// What the access gate asks: the configured roles (wiring/roles.ts), where a delegate also passes as an
// approver while any delegation of theirs is on the books, so that the engine can say why a click is
// refused (above the cap, window ended, another kind) rather than only that the role is missing. The
// engine's own checks, per kind of request, stay behind the gate.
import type { ApprovalPolicy, RoleBook } from '../approvals/index.js';
import type { Roles } from '../approvals/roles.js';

export function gateRoles(book: RoleBook, policy: ApprovalPolicy | undefined): Roles {
  return {
    async holds(user, need) {
      if (await book.holds(user, need)) return true;
      if (need.role !== 'approver' || !policy) return false;
      return (await policy.delegations()).some((delegation) => delegation.delegate === user);
    },
    holders: (need) => book.holders(need),
  };
}
