// `/cngn policy`: the approval policy as configured, with approvers' names resolved from Slack
// (users.info) and the approver group's members (usergroups.users.list). A name Slack cannot give is
// shown as a mention; an unreadable group is said, never hidden. Someone Slack describes as unable to
// act here (of another workspace, a guest, a bot, deactivated) is left out, as the gate refuses them.
import type { WebClient } from '@slack/web-api';
import type { ApprovalTier, Delegation, Holders, RoleSummary, SigningRule } from '../../../access/index.js';
import type { Freeze, LimitUse, ReminderPoint } from '../../../approvals/index.js';
import type { CngnEnvironment } from '../../../cngn/api.js';
import { barred, type Home, personFrom, type SlackUser } from '../../runtime/people.js';
import { type FeatureSubcommand, READERS, type SlackMessage } from '../../types.js';
import { type NamedPerson, type PolicyView, policyMessage } from '../blocks/policy.js';
import type { NamedHolders, RolesView } from '../blocks/roles.js';

/** The settled configuration the policy is read from (start-up builds it). */
export interface PolicyFacts {
  tiers: readonly ApprovalTier[];
  approvers: readonly string[];
  approverGroup?: string | undefined;
  ttlMs: number;
  reminders: readonly ReminderPoint[];
  notify?: string | undefined;
  approvalsChannel: string;
  alertsChannel?: string | undefined;
  environment: CngnEnvironment;
  /** The delegations in effect now, read from the store at each answer. */
  delegations?: (() => Promise<Delegation[]>) | undefined;
  /** The freeze of sends in place, read from the store at each answer. */
  freeze?: (() => Promise<Freeze | undefined>) | undefined;
  /** The limits over time and what counts against them now, read from the store at each answer. */
  limits?: (() => Promise<LimitUse>) | undefined;
  /** The roles as configured (readers, requesters, auditors, approver pools per kind). */
  roles?: { summary(): RoleSummary } | undefined;
  /** Which approvals need the approver's passkey: the rule in force, read at each answer (CNGN_SIGNED_APPROVALS, or as the workbench switched it). */
  signing?: (() => SigningRule) | undefined;
  /** The workspace whose members may act (auth.test at start-up), once the app exists. */
  home?: (() => Home | undefined) | undefined;
  now?: (() => Date) | undefined;
}

/** Names are looked up for at most this many people per answer; the rest are shown as mentions. */
const MAX_LOOKUPS = 40;

/** A person as listed: named, a bare mention when Slack cannot say, or left out ('barred'). */
async function one(client: WebClient, id: string, home: Home | undefined): Promise<NamedPerson | 'barred'> {
  try {
    const user = (await client.users.info({ user: id })).user as SlackUser | undefined;
    if (barred(personFrom(id, user ?? {}, home))) return 'barred';
    const name = user?.real_name || user?.profile?.real_name || user?.profile?.display_name || user?.name;
    return { id, name: name || undefined };
  } catch {
    return { id };
  }
}

async function named(
  client: WebClient,
  ids: readonly string[],
  home: Home | undefined,
): Promise<NamedPerson[]> {
  const found = await Promise.all(
    ids.map(
      async (id, i): Promise<NamedPerson | 'barred'> => (i >= MAX_LOOKUPS ? { id } : one(client, id, home)),
    ),
  );
  return found.filter((person): person is NamedPerson => person !== 'barred');
}

async function namedHolders(
  client: WebClient,
  holders: Holders,
  home: Home | undefined,
): Promise<NamedHolders> {
  return {
    everyone: holders.everyone,
    people: await named(client, holders.users, home),
    groups: holders.groups,
  };
}

async function rolesView(
  client: WebClient,
  summary: RoleSummary,
  home: Home | undefined,
): Promise<RolesView> {
  return {
    readers: await namedHolders(client, summary.readers, home),
    requesters: await namedHolders(client, summary.requesters, home),
    auditors: await namedHolders(client, summary.auditors, home),
    ownPools: await Promise.all(
      summary.ownPools.map(async ({ kind, holders }) => ({
        kind,
        holders: await namedHolders(client, holders, home),
      })),
    ),
  };
}

async function policyCommand(client: WebClient, facts: PolicyFacts): Promise<SlackMessage> {
  const home = facts.home?.();
  let group: PolicyView['group'];
  if (facts.approverGroup) {
    try {
      const members = (await client.usergroups.users.list({ usergroup: facts.approverGroup })).users ?? [];
      group = { id: facts.approverGroup, members: await named(client, members, home) };
    } catch (error) {
      const code = (error as { data?: { error?: string } }).data?.error ?? 'Slack did not answer';
      group = { id: facts.approverGroup, problem: code };
    }
  }
  return policyMessage({
    tiers: facts.tiers,
    approvers: await named(client, facts.approvers, home),
    group,
    ttlMs: facts.ttlMs,
    reminders: facts.reminders,
    notify: facts.notify,
    approvalsChannel: facts.approvalsChannel,
    alertsChannel: facts.alertsChannel,
    environment: facts.environment,
    delegations: (await facts.delegations?.()) ?? [],
    freeze: await facts.freeze?.(),
    limits: await facts.limits?.(),
    roles: facts.roles ? await rolesView(client, facts.roles.summary(), home) : undefined,
    signing: facts.signing?.(),
    now: facts.now?.() ?? new Date(),
  });
}

export const POLICY_SUBCOMMAND: FeatureSubcommand<'policy', PolicyFacts> = {
  name: 'policy',
  usage: 'policy',
  summary:
    'who may do what: roles, approvers per kind, tiers, limits over time, lifetime, reminders, channels, the freeze',
  who: READERS,
  example: 'policy',
  needs: 'policy',
  run: (command, facts) => policyCommand(command.client, facts),
};
