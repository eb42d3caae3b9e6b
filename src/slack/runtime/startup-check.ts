// The start-up check against Slack, before the bot reports ready: auth.test (is the token valid; which
// bot, which workspace), the scopes Slack granted (its x-oauth-scopes header) against what the features
// need (slack/scopes.ts), the bot's membership of the approvals and alerts channels, and whether the
// approvers exist. Each problem is one line naming its fix. A token Slack refuses, a scope the bot cannot
// work without (the gate's users:read; usergroups:read once a setting names a user group), or a channel
// that does not exist is fatal: the bot does not start. The rest are warnings, naming the feature that
// will not work.
import type { WebAPICallResult, WebClient } from '@slack/web-api';
import { z } from 'zod';
import { SlackErrorCode } from './error-codes.js';
import { personFrom, type SlackUser } from './people.js';
import { BOT_SCOPES, type ScopeNeed } from './scopes.js';

export interface SlackIdentity {
  botUserId: string;
  botId: string;
  /** The bot user's name (`cngn-desk`), as `/invite @…` needs it. */
  botName: string;
  team: string;
  teamId: string;
  /** On Enterprise Grid: the organisation the workspace belongs to. */
  enterpriseId?: string | undefined;
}

export interface CheckFinding {
  level: 'fatal' | 'warning';
  /** One line that names the fix. */
  line: string;
}

export interface SlackCheckSetup {
  approvalsChannel?: string | undefined;
  alertsChannel?: string | undefined;
  approvers?: readonly string[] | undefined;
  approverGroup?: string | undefined;
  /** The people each role setting names (CNGN_READERS, CNGN_APPROVERS_WITHDRAW…), checked as the approvers are. */
  listed?: ReadonlyArray<{ setting: string; users: readonly string[] }> | undefined;
  /** The settings that name a user group (CNGN_READERS, CNGN_APPROVERS_WITHDRAW…): usergroups:read is then needed. */
  groupSettings?: readonly string[] | undefined;
}

export interface SlackCheck {
  identity: SlackIdentity;
  /** Granted scopes; undefined when Slack did not say. */
  scopes: readonly string[] | undefined;
  findings: CheckFinding[];
}

/** The check found a problem the bot cannot run with; `findings` holds every line, fatal or not. */
export class SlackCheckFailed extends Error {
  override name = 'SlackCheckFailed';
  readonly code = SlackErrorCode.CheckFailed;
  constructor(readonly findings: readonly CheckFinding[]) {
    super(
      findings
        .filter((f) => f.level === 'fatal')
        .map((f) => f.line)
        .join('; '),
    );
  }
}

const REINSTALL = 'reinstall the app from manifest.yml';

/** What each refusal of the token means, and what to do. */
const TOKEN_REFUSALS: Record<string, string> = {
  invalid_auth:
    "Slack does not accept SLACK_BOT_TOKEN (invalid_auth): copy the Bot User OAuth Token (xoxb-…) again from the app's OAuth & Permissions page",
  not_authed:
    'Slack received no token (not_authed): set SLACK_BOT_TOKEN to the Bot User OAuth Token (xoxb-…)',
  account_inactive:
    'SLACK_BOT_TOKEN belongs to a deactivated bot or workspace (account_inactive): install the app again and set its new bot token',
  token_revoked:
    'SLACK_BOT_TOKEN was revoked (token_revoked): install the app again and set its new bot token',
  token_expired:
    'SLACK_BOT_TOKEN has expired (token_expired): turn token rotation off for the app (manifest.yml does) and set a new bot token',
  not_allowed_token_type:
    'SLACK_BOT_TOKEN is not a bot token (not_allowed_token_type): use the Bot User OAuth Token (xoxb-…)',
};

interface SlackErrorShape {
  code?: string;
  data?: { error?: string; needed?: string };
  message?: string;
}

/** Slack's `error` for a refusal (`{ok: false}`), undefined for anything else (network, HTTP). */
function slackError(error: unknown): string | undefined {
  const e = error as SlackErrorShape | undefined;
  return e?.code === 'slack_webapi_platform_error' ? (e.data?.error ?? 'unknown_error') : undefined;
}

function neededScope(error: unknown): string | undefined {
  return (error as SlackErrorShape | undefined)?.data?.needed;
}

/**
 * The check's own client settings: an unreachable or silent Slack ends the start in about a minute
 * with the "did not answer" line, where WebClient's default retries would wait half an hour.
 */
export const STARTUP_CHECK_CLIENT = {
  timeout: 10_000,
  retryConfig: { retries: 3, factor: 2, minTimeout: 1_000, maxTimeout: 4_000 },
} as const;

const fatal = (line: string): CheckFinding => ({ level: 'fatal', line });
const warning = (line: string): CheckFinding => ({ level: 'warning', line });

/** Runs the check; throws SlackCheckFailed when the bot cannot run, else returns what it found. */
export async function checkSlack(client: WebClient, setup: SlackCheckSetup): Promise<SlackCheck> {
  const { identity, scopes } = await whoAmI(client);
  const findings: CheckFinding[] = [...scopeFindings(scopes, setup)];
  // Without a scope a call needs, Slack's answer says nothing the scope's own line has not said.
  const granted = (scope: string) => scopes === undefined || scopes.includes(scope);
  if (granted('channels:read') || granted('groups:read')) {
    findings.push(...(await channelFindings(client, setup, identity)));
  }
  if (granted('users:read')) findings.push(...(await listedFindings(client, setup, identity)));
  if (setup.approverGroup && granted('usergroups:read')) {
    findings.push(...(await groupFindings(client, setup.approverGroup)));
  }
  if (findings.some((f) => f.level === 'fatal')) throw new SlackCheckFailed(findings);
  return { identity, scopes, findings };
}

/** What the check reads of auth.test's answer: a bot token's answer names the bot and its user. */
const authTestAnswer = z.looseObject({
  user_id: z.string().min(1),
  bot_id: z.string().min(1),
  user: z.string().optional(),
  team: z.string().optional(),
  team_id: z.string().optional(),
  enterprise_id: z.string().nullish(),
});

async function whoAmI(
  client: WebClient,
): Promise<{ identity: SlackIdentity; scopes: readonly string[] | undefined }> {
  let answer: WebAPICallResult;
  try {
    answer = await client.auth.test();
  } catch (error) {
    const refusal = slackError(error);
    const line =
      refusal === undefined
        ? `Slack did not answer auth.test (${describe(error)}): check SLACK_API_URL and this host's connection to Slack`
        : (TOKEN_REFUSALS[refusal] ?? `Slack refused auth.test (${refusal}): check SLACK_BOT_TOKEN`);
    throw new SlackCheckFailed([fatal(line)]);
  }
  const parsed = authTestAnswer.safeParse(answer);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join('.')).join(', ');
    throw new SlackCheckFailed([
      fatal(`auth.test names no bot (${fields}): SLACK_BOT_TOKEN must be the Bot User OAuth Token (xoxb-…)`),
    ]);
  }
  const bot = parsed.data;
  if (!bot.team_id) {
    // Whose members may use the bot: without it nobody could be told to be one.
    throw new SlackCheckFailed([
      fatal(
        'auth.test names no workspace (team_id): the access gate cannot tell its members; check SLACK_API_URL',
      ),
    ]);
  }
  return {
    identity: {
      botUserId: bot.user_id,
      botId: bot.bot_id,
      botName: bot.user || 'cngn-desk',
      team: bot.team || bot.team_id,
      teamId: bot.team_id,
      ...(bot.enterprise_id ? { enterpriseId: bot.enterprise_id } : {}),
    },
    scopes: answer.response_metadata?.scopes,
  };
}

/** Every setting that names a user group, once each. */
function groupSettings(setup: SlackCheckSetup): string[] {
  const named = [...(setup.approverGroup ? ['CNGN_APPROVER_GROUP'] : []), ...(setup.groupSettings ?? [])];
  return [...new Set(named)];
}

/** What a missing scope stops, when the bot cannot start without it; undefined when it can. */
function neededFor(need: ScopeNeed, setup: SlackCheckSetup): string | undefined {
  if (need.need === 'always') return need.feature;
  const settings = groupSettings(setup);
  if (need.need !== 'groups' || settings.length === 0) return undefined;
  const listed =
    settings.length === 1 ? settings[0] : `${settings.slice(0, -1).join(', ')} and ${settings.at(-1)}`;
  return `reading the members of the user groups ${listed} ${settings.length === 1 ? 'names' : 'name'}`;
}

function scopeFindings(scopes: readonly string[] | undefined, setup: SlackCheckSetup): CheckFinding[] {
  if (scopes === undefined) {
    return [
      warning(
        'Slack did not say which scopes SLACK_BOT_TOKEN has (no x-oauth-scopes header): scopes not checked',
      ),
    ];
  }
  return BOT_SCOPES.filter((need) => !scopes.includes(need.scope)).map((need) => {
    const missing = `scope ${need.scope} is missing: ${REINSTALL}`;
    const feature = neededFor(need, setup);
    return feature
      ? fatal(`${missing}; the bot does not start without it (needed for ${feature})`)
      : warning(`${missing}; until then ${need.feature} does not work`);
  });
}

/** The approvals and alerts channels, once each, with the settings that name them. */
function channelsOf(setup: SlackCheckSetup): Map<string, string[]> {
  const channels = new Map<string, string[]>();
  const add = (id: string | undefined, variable: string) => {
    if (!id) return;
    channels.set(id, [...(channels.get(id) ?? []), variable]);
  };
  add(setup.approvalsChannel, 'CNGN_APPROVALS_CHANNEL');
  add(setup.alertsChannel, 'CNGN_ALERTS_CHANNEL');
  return channels;
}

async function channelFindings(
  client: WebClient,
  setup: SlackCheckSetup,
  identity: SlackIdentity,
): Promise<CheckFinding[]> {
  const findings: CheckFinding[] = [];
  const invite = `/invite @${identity.botName}`;
  for (const [id, variables] of channelsOf(setup)) {
    const setting = variables.join(' and ');
    let channel: { name?: string; is_member?: boolean; is_archived?: boolean } | undefined;
    try {
      channel = (await client.conversations.info({ channel: id })).channel;
    } catch (error) {
      const refusal = slackError(error);
      if (refusal === 'channel_not_found') {
        findings.push(
          fatal(
            `channel ${id} (${setting}) does not exist, or is private and the bot is not in it: set ${setting} to the channel's ID (channel name → About), or ${invite} in that private channel`,
          ),
        );
      } else if (refusal === 'missing_scope') {
        findings.push(
          warning(
            `cannot tell whether the bot is in channel ${id} (${setting}): scope ${neededScope(error) ?? 'groups:read'} is missing: ${REINSTALL}`,
          ),
        );
      } else {
        findings.push(warning(`could not check channel ${id} (${setting}): ${refusal ?? describe(error)}`));
      }
      continue;
    }
    const name = channel?.name ? `#${channel.name}` : `channel ${id}`;
    if (channel?.is_archived) {
      findings.push(
        warning(`${name} (${setting}) is archived: unarchive it, or set ${setting} to another channel`),
      );
    } else if (channel?.is_member === false) {
      findings.push(warning(`the bot is not in ${name} (${setting}): ${invite} there`));
    }
  }
  return findings;
}

/** Each person a setting names, once, with the settings that name them. */
function listedPeople(setup: SlackCheckSetup): Map<string, string[]> {
  const people = new Map<string, string[]>();
  const add = (id: string, setting: string) => people.set(id, [...(people.get(id) ?? []), setting]);
  for (const id of setup.approvers ?? []) add(id, 'CNGN_APPROVERS');
  for (const { setting, users } of setup.listed ?? []) for (const id of users) add(id, setting);
  return people;
}

/**
 * Whether each person a setting names can act: a member of this workspace, not deactivated, no bot,
 * no guest. Whatever a setting lists, the access gate lets none of the others act; this says so at start.
 */
async function listedFindings(
  client: WebClient,
  setup: SlackCheckSetup,
  identity: SlackIdentity,
): Promise<CheckFinding[]> {
  const findings: CheckFinding[] = [];
  const home = { teamId: identity.teamId, team: identity.team, enterpriseId: identity.enterpriseId };
  for (const [id, settings] of listedPeople(setup)) {
    const finding = await personFinding(client, id, settings, identity, home);
    if (finding) findings.push(finding);
  }
  return findings;
}

/** What is wrong with one person a setting names, if anything. */
async function personFinding(
  client: WebClient,
  id: string,
  settings: string[],
  identity: SlackIdentity,
  home: Parameters<typeof personFrom>[2],
): Promise<CheckFinding | undefined> {
  const setting = settings.join(', ');
  const noun = settings.every((s) => s.startsWith('CNGN_APPROVERS')) ? 'approver' : 'person';
  let user: SlackUser | undefined;
  try {
    user = (await client.users.info({ user: id })).user as SlackUser | undefined;
  } catch (error) {
    const refusal = slackError(error);
    return warning(
      refusal === 'user_not_found'
        ? `${noun} ${id} (${setting}) is not a member of this workspace: check the member ID (profile → ⋮ → Copy member ID)`
        : `could not check ${noun} ${id} (${setting}): ${refusal ?? describe(error)}`,
    );
  }
  const who = `${noun} ${id}${user?.real_name || user?.name ? ` (${user.real_name || user.name})` : ''}`;
  const person = personFrom(id, user ?? {}, home);
  if (person.external) {
    return warning(
      `${who} is not a member of ${identity.team} (a member of another workspace, as through Slack Connect), so cngn-desk lets them do nothing: remove them from ${setting}`,
    );
  }
  if (person.deleted) return warning(`${who} is deactivated in Slack: remove them from ${setting}`);
  if (person.bot) return warning(`${who} is a bot, who cannot act here: remove it from ${setting}`);
  if (person.guest) return warning(`${who} is a guest, who cannot act here: remove them from ${setting}`);
  return undefined;
}

async function groupFindings(client: WebClient, group: string): Promise<CheckFinding[]> {
  try {
    const members = (await client.usergroups.users.list({ usergroup: group })).users ?? [];
    return members.length > 0
      ? []
      : [
          warning(
            `the approver group ${group} (CNGN_APPROVER_GROUP) has no members: nobody in it can approve`,
          ),
        ];
  } catch (error) {
    const refusal = slackError(error);
    return [
      warning(
        refusal === 'no_such_subteam'
          ? `the approver group ${group} (CNGN_APPROVER_GROUP) does not exist: check its ID (the group's page → ⋮ → Copy group ID)`
          : `could not check the approver group ${group} (CNGN_APPROVER_GROUP): ${refusal ?? describe(error)}`,
      ),
    ];
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
