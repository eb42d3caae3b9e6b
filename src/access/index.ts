// What the access room offers the rest of the bot: the kinds of request, and who holds which role for
// each (roles, user groups, approver pools, the tiers of approvals an amount needs). Nothing else is
// imported from outside this folder (.dependency-cruiser.cjs).
export { GroupMembers } from './groups.js';
export { REQUEST_KINDS, type RequestKind } from './kinds.js';
export { ApproverPools, holdersOf, type PoolSettings, type SlackIds } from './pools.js';
export { RoleBook, type RoleSummary } from './role-book.js';
export {
  type ConfiguredRoles,
  peopleNamedBy,
  poolProblems,
  ROLE_VARIABLES,
  settleRoles,
  userList,
  variablesNamingGroups,
} from './role-settings.js';
export type { Holders, Need, Role, Roles } from './roles.js';
export { type ApprovalTier, parseTiers, requiredApprovals } from './tiers.js';
