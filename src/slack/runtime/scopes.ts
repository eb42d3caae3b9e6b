// The bot token's scopes: each with the feature that needs it. manifest.yml asks for exactly these
// (test/docs.test.ts checks), and the start-up check compares them with what Slack granted.

export interface ScopeNeed {
  scope: string;
  /** What does not work without it, read in the start-up check's line ("until then … does not work"). */
  feature: string;
  /**
   * `always`: the bot is of no use without it, so it does not start. `groups`: the same when a setting
   * names a user group (S…) for a role or an approver pool. `optional`: a warning naming the feature.
   */
  need: 'always' | 'groups' | 'optional';
}

export const BOT_SCOPES: readonly ScopeNeed[] = [
  { scope: 'commands', feature: 'the /cngn command', need: 'always' },
  { scope: 'chat:write', feature: 'every message the bot posts', need: 'always' },
  {
    scope: 'usergroups:read',
    feature: 'user groups naming approvers or roles (CNGN_APPROVER_GROUP, CNGN_READERS…) and /cngn policy',
    need: 'groups',
  },
  {
    scope: 'users:read',
    feature:
      "the access gate, which looks up everyone who uses the bot to refuse guests, bots and deactivated accounts; /cngn policy (approvers' names); recording the actor's name in audit entries",
    need: 'always',
  },
  {
    scope: 'users:read.email',
    feature: "recording the actor's e-mail in audit entries (the name alone is recorded)",
    need: 'optional',
  },
  { scope: 'files:write', feature: '/cngn audit export', need: 'optional' },
  {
    scope: 'im:write',
    feature: "/cngn audit export's DM and answers to App Home's buttons",
    need: 'optional',
  },
  { scope: 'channels:read', feature: 'the start-up check of public channels', need: 'optional' },
  { scope: 'groups:read', feature: 'the start-up check of private channels', need: 'optional' },
];
