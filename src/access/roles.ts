// Who may do what: the roles a deployment names (readers, requesters, auditors, approvers per kind of
// request) and the question every surface asks before acting. Guests and bots hold no role, whatever
// the lists say; the Slack side answers that from users.info before asking here.
import type { RequestKind } from './kinds.js';

export type Role = 'reader' | 'requester' | 'auditor' | 'approver';

/** What an action needs: a role and, for approving, the kind of request it approves. */
export interface Need {
  role: Role;
  kind?: RequestKind | undefined;
  /**
   * Deciding on requests (approve, reject, review): a delegate whose delegation is on the books passes
   * too, and the engine decides per request what their delegation covers. Without it, an approver's
   * need is an approver's in their own right (freeze, unfreeze, resolve), as the engine asks.
   */
  delegates?: boolean | undefined;
  /**
   * The requester role, or an approver in their own right: what the filer of a request does to it
   * (Cancel, Extend), where approvers file what only approvers file (delegations, unfreezes, passkey
   * registrations) whether or not they are requesters; the engine checks the request is theirs.
   */
  approvers?: boolean | undefined;
}

/** Who holds a role: every member who is not a guest, or the people and user groups named. */
export interface Holders {
  everyone: boolean;
  users: readonly string[];
  groups: readonly string[];
}

export interface Roles {
  /** Does `user` (known not to be a guest or a bot) hold what `need` asks? */
  holds(user: string, need: Need): Promise<boolean>;
  /** Who holds it, for a refusal that names them and for /cngn policy. */
  holders(need: Need): Promise<Holders>;
}
