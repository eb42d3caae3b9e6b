// Builds the roles (readers, requesters, auditors, approver pools) from settled configuration, with one
// cache of user group members shared by the roles and the approval policy. Groups are read through the
// Slack app's client, re-read when Slack says their members changed and every few minutes.
import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import {
  ApproverPools,
  type ConfiguredRoles,
  GroupMembers,
  RoleBook,
  variablesNamingGroups,
} from '../access/index.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { registerGroupChanges } from '../slack/approvals/group-changes.js';
import type { Installed } from '../slack/runtime/installed.js';

const GROUP_REREAD_MS = 5 * 60_000;

export interface RolesSetup {
  approvers: readonly string[];
  approverGroup?: string | undefined;
  roles?: ConfiguredRoles | undefined;
  /** Told when a re-read finds a group's members changed (to be recorded). */
  onMembershipChange?: ((group: string, added: string[], removed: string[]) => void) | undefined;
  rereadEveryMs?: number | undefined;
  log?: Pick<Logger, 'warn'> | undefined;
}

export interface RolesWiring {
  /** Who holds which role: the question the Slack gate asks (access/roles.ts). */
  roles: RoleBook;
  /** Re-read a group named by a role or pool now; who was added and removed since the last read. */
  refreshGroup(group: string): Promise<{ added: string[]; removed: string[] }>;
  /** Reads groups through the app's client; listens for membership changes; starts the re-reads. */
  plugin: (app: App) => void;
  /** Stops the periodic re-read. */
  stop(): void;
}

export function rolesSetupOf(config: Config): Pick<RolesSetup, 'approvers' | 'approverGroup' | 'roles'> {
  return { approvers: config.approvers, approverGroup: config.approverGroup, roles: config.roles };
}

/** The settings that name a user group: the start-up check needs usergroups:read for them. */
export function groupSettingsOf(config: Config): string[] {
  return [...(config.approverGroup ? ['CNGN_APPROVER_GROUP'] : []), ...variablesNamingGroups(config.roles)];
}

export function createRoles(setup: RolesSetup): RolesWiring {
  let client: WebClient | undefined;
  const groups = new GroupMembers({
    // An answer without `users` says nothing of the members: unknown, never an empty group.
    read: async (usergroup) =>
      client ? (await client.usergroups.users.list({ usergroup })).users : undefined,
    onMembershipChange: setup.onMembershipChange,
  });
  const pools = new ApproverPools(
    {
      approvers: setup.approvers,
      approverGroup: setup.approverGroup,
      byKind: setup.roles?.approversByKind,
    },
    groups,
  );
  const roles = new RoleBook(setup.roles ?? {}, pools);
  let timer: NodeJS.Timeout | undefined;
  const rereadAll = async () => {
    for (const group of roles.groupIds()) {
      await roles.refreshGroup(group).catch((error: unknown) => {
        setup.log?.warn('could not re-read a user group', { group, error: String(error) });
      });
    }
  };
  return {
    roles,
    refreshGroup: (group) => roles.refreshGroup(group),
    plugin: (app) => {
      client = app.client;
      registerGroupChanges(app, (group) => roles.refreshGroup(group), setup.log);
      if (timer || roles.groupIds().length === 0) return;
      timer = setInterval(() => void rereadAll(), setup.rereadEveryMs ?? GROUP_REREAD_MS);
      timer.unref();
    },
    stop: () => {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

/** The roles as the start-up wiring lists them: groups read through the app, the re-reads stopped with the bot. */
export function installRoles(roles: RolesWiring): Installed {
  return { listeners: roles.plugin, stop: roles.stop };
}
