// The role variables of the environment (CNGN_READERS, CNGN_REQUESTERS, CNGN_AUDITORS and one
// CNGN_APPROVERS_<KIND> per kind of request), as zod schemas config.ts adds to its own, and what they
// settle into. Each is a comma-separated list of Slack user IDs (U…, W…) and user group IDs (S…).
import { z } from 'zod';
import { REQUEST_KINDS, type RequestKind } from './kinds.js';
import type { SlackIds } from './pools.js';
import type { RoleLists } from './role-book.js';
import { type ApprovalTier, requiredApprovals } from './tiers.js';

const SLACK_ID = /^[UWS][A-Z0-9]{2,}$/;
const USER_ID = /^[UW][A-Z0-9]{2,}$/;

const items = (text: string) =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

/** `U012AB, S0TREASURY` → the IDs; throws naming the first item that is not a user or group ID. */
function parseSlackIds(text: string): string[] {
  const ids = items(text);
  const bad = ids.find((id) => !SLACK_ID.test(id));
  if (bad !== undefined) {
    throw new Error(`"${bad}" is not a Slack user ID (U…, W…) or user group ID (S…)`);
  }
  if (ids.length === 0) throw new Error('names nobody: leave it unset, or name user or group IDs');
  return [...new Set(ids)];
}

/** `U012AB, W0CD` → the user IDs; throws naming the first item that is not one. */
function parseUserIds(text: string): string[] {
  const ids = items(text);
  const bad = ids.find((id) => !USER_ID.test(id));
  if (bad !== undefined)
    throw new Error(`"${bad}" is not a Slack user ID (U…, W…); separate IDs with commas`);
  return ids;
}

const listOf = (parse: (text: string) => string[]) =>
  z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z
      .string()
      .transform((text, ctx) => {
        try {
          return parse(text);
        } catch (error) {
          ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
          return z.NEVER;
        }
      })
      .optional(),
  );

/** CNGN_APPROVERS: people only (its group is CNGN_APPROVER_GROUP). */
export const userList = listOf(parseUserIds);
const idList = listOf(parseSlackIds);

/** The role variables, in the order docs/configuration.md lists them. */
export const ROLE_VARIABLES = {
  CNGN_READERS: idList,
  CNGN_REQUESTERS: idList,
  CNGN_AUDITORS: idList,
  CNGN_APPROVERS_WITHDRAW: idList,
  CNGN_APPROVERS_REDEEM: idList,
  CNGN_APPROVERS_BRIDGE: idList,
  CNGN_APPROVERS_WHITELIST: idList,
  CNGN_APPROVERS_SETTLEMENT: idList,
  CNGN_APPROVERS_DELEGATION: idList,
  CNGN_APPROVERS_UNFREEZE: idList,
  CNGN_APPROVERS_PASSKEY: idList,
} satisfies Record<string, typeof idList> & Record<`CNGN_APPROVERS_${Uppercase<RequestKind>}`, typeof idList>;

export type RoleVariable = keyof typeof ROLE_VARIABLES;

/** The variable that names a kind's own approver pool. */
const poolVariable = (kind: RequestKind) =>
  `CNGN_APPROVERS_${kind.toUpperCase() as Uppercase<RequestKind>}` as const;

/** The roles as configured: the lists (unset: the default) and the kinds with a pool of their own. */
export interface ConfiguredRoles extends RoleLists {
  approversByKind: Partial<Record<RequestKind, SlackIds>>;
}

export function settleRoles(parsed: { [name in RoleVariable]?: string[] | undefined }): ConfiguredRoles {
  const approversByKind: Partial<Record<RequestKind, SlackIds>> = {};
  for (const kind of REQUEST_KINDS) {
    const ids = parsed[poolVariable(kind)];
    if (ids) approversByKind[kind] = ids;
  }
  return {
    readers: parsed.CNGN_READERS,
    requesters: parsed.CNGN_REQUESTERS,
    auditors: parsed.CNGN_AUDITORS,
    approversByKind,
  };
}

/** Each role variable set, with the IDs it names, in the order listed above. */
function listsOf(roles: ConfiguredRoles | undefined): Array<[RoleVariable, SlackIds]> {
  if (!roles) return [];
  const lists: Array<[RoleVariable, SlackIds | undefined]> = [
    ['CNGN_READERS', roles.readers],
    ['CNGN_REQUESTERS', roles.requesters],
    ['CNGN_AUDITORS', roles.auditors],
    ...REQUEST_KINDS.map((kind): [RoleVariable, SlackIds | undefined] => [
      poolVariable(kind),
      roles.approversByKind[kind],
    ]),
  ];
  return lists.flatMap(([name, ids]): Array<[RoleVariable, SlackIds]> => (ids ? [[name, ids]] : []));
}

/** The role variables that name a user group (S…), in the order listed above: its members are read from Slack. */
export function variablesNamingGroups(roles: ConfiguredRoles | undefined): RoleVariable[] {
  return listsOf(roles)
    .filter(([, ids]) => ids.some((id) => id.startsWith('S')))
    .map(([name]) => name);
}

/** The people (not groups) each role variable names, for the start-up check of who they are. */
export function peopleNamedBy(
  roles: ConfiguredRoles | undefined,
): Array<{ setting: string; users: string[] }> {
  return listsOf(roles)
    .map(([setting, ids]) => ({ setting, users: ids.filter((id) => !id.startsWith('S')) }))
    .filter((listed) => listed.users.length > 0);
}

/**
 * A kind's pool of people only (no group) must hold as many as the kind can need, or some such request
 * could never be approved: the top tier for what moves an amount (unbounded) and for a settlement
 * change, the lowest tier's count for the kinds without an amount.
 */
export function poolProblems(
  env: Record<string, string | undefined>,
  tiers: readonly ApprovalTier[],
): string[] {
  const top = Math.max(1, ...tiers.map((tier) => tier.approvals));
  const problems: string[] = [];
  for (const kind of REQUEST_KINDS) {
    const name = poolVariable(kind);
    const text = env[name]?.trim();
    if (!text) continue;
    let ids: string[];
    try {
      ids = parseSlackIds(text);
    } catch {
      continue; // the variable's own problem says so
    }
    const needed = WITHOUT_AMOUNT.includes(kind) ? requiredApprovals(tiers, undefined, kind) : top;
    if (ids.some((id) => id.startsWith('S')) || ids.length >= needed) continue;
    problems.push(
      `${name}: ${ids.length} approver(s) named, but CNGN_APPROVAL_TIERS needs up to ${needed} distinct approvals for it — name at least ${needed}, or a user group`,
    );
  }
  return problems;
}

const WITHOUT_AMOUNT: readonly RequestKind[] = ['whitelist', 'delegation', 'unfreeze', 'passkey'];
