// What the access room offers the rest of the bot: the kinds of request, who holds which role for each
// (roles, user groups, approver pools, the tiers of approvals an amount needs), the delegations that
// let someone act in an approver's place, and the policy that judges who may act on a request. Nothing
// else is imported from outside this folder (.dependency-cruiser.cjs).
export { type Delegation, isLive, LONGEST_DELEGATION_MS } from './delegations.js';
export { GroupMembers } from './groups.js';
export type { JudgedRequest } from './judged-request.js';
export { REQUEST_KINDS, type RequestKind } from './kinds.js';
export {
  type ApprovalEvidence,
  describeSigningRule,
  heldAt,
  needsSignature,
  type Passkey,
  parseSigningRule,
  passkeyNameKey,
  type SigningRule,
} from './passkeys.js';
export { ApprovalPolicy, capProblem, countedPeople, type RefusalReason } from './policy.js';
export { ApproverPools, holdersOf, type SlackIds } from './pools.js';
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
export { type SignatureRefusal, type SigningPlace, verifyEvidence } from './signatures.js';
export { type ApprovalTier, amountBands, parseTiers, requiredApprovals } from './tiers.js';
