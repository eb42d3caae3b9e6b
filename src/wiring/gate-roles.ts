// What the access gate asks: the configured roles (wiring/roles.ts), where a delegate also passes where
// deciding on requests is asked (a need with `delegates`) while any delegation of theirs is on the
// books, so that the engine can say why a click is refused (above the cap, window ended, another kind)
// rather than only that the role is missing. A delegate whose delegation is live also reads what the
// approvers read (App Home, `/cngn pending` and its Review all), as they decide in an approver's place.
// What only an approver in their own right does (freeze, unfreeze, resolve) a delegate never passes, as
// the engine would refuse it anyway.

import { isLive, type RoleBook, type Roles } from '../access/index.js';
import type { ApprovalEngine } from '../approvals/index.js';

export function gateRoles(
  book: RoleBook,
  engine: Pick<ApprovalEngine, 'delegations' | 'now'> | undefined,
): Roles {
  return {
    async holds(user, need) {
      if (await book.holds(user, need)) return true;
      if (!engine) return false;
      if (need.role === 'reader') {
        const now = engine.now();
        return (await engine.delegations()).some((d) => d.delegate === user && isLive(d, now));
      }
      if (need.role !== 'approver' || !need.delegates) return false;
      return (await engine.delegations()).some((delegation) => delegation.delegate === user);
    },
    holders: (need) => book.holders(need),
  };
}
