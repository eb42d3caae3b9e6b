// Who is in the workbench's pretend workspace: six demo users (one a guest), three channels, a DM with
// the bot per user, and the bot itself. Fixed, so a reload and a restart show the same people and places.
import type { WorkbenchChannel, WorkbenchUser } from './protocol.js';

export const TEAM = { id: 'T0WORKBENCH', domain: 'workbench', name: 'Local workbench' } as const;
export const APP_ID = 'A0CNGNDESK';
export const BOT = { id: 'U0CNGNBOT', botId: 'B0CNGNBOT', name: 'cngn-desk' } as const;

export const USERS: readonly WorkbenchUser[] = [
  { id: 'U0ADA', name: 'Ada', role: 'treasury operations, requester' },
  { id: 'U0BOLA', name: 'Bola', role: 'approver' },
  { id: 'U0CHIDI', name: 'Chidi', role: 'approver' },
  { id: 'U0DAYO', name: 'Dayo', role: 'reader' },
  { id: 'U0EFE', name: 'Efe', role: 'auditor' },
  { id: 'U0GBENGA', name: 'Gbenga', role: 'guest: refused everything' },
];

/** Single-channel guests of the pretend workspace (users.info says is_restricted). */
export const GUESTS: readonly string[] = ['U0GBENGA'];

/** The roles the workbench configures unless the operator names their own (CNGN_READERS, …). */
export const DEMO_ROLES = {
  CNGN_READERS: ['U0ADA', 'U0BOLA', 'U0CHIDI', 'U0DAYO', 'U0EFE'],
  CNGN_REQUESTERS: ['U0ADA', 'U0BOLA', 'U0CHIDI'],
  CNGN_AUDITORS: ['U0EFE'],
} as const;

export const CHANNELS = {
  treasury: { id: 'C0TREASURY', name: 'treasury', kind: 'channel' },
  approvals: { id: 'C0APPROVALS', name: 'approvals', kind: 'channel' },
  alerts: { id: 'C0ALERTS', name: 'alerts', kind: 'channel' },
} as const satisfies Record<string, WorkbenchChannel>;

/** The approvers the workbench configures (CNGN_APPROVERS) unless the operator names their own. */
export const DEMO_APPROVERS = ['U0BOLA', 'U0CHIDI'] as const;
/** A user group with the same two, for an operator who sets CNGN_APPROVER_GROUP=S0APPROVERS. */
export const USER_GROUPS: Record<string, readonly string[]> = { S0APPROVERS: DEMO_APPROVERS };

export const userById = (id: string): WorkbenchUser | undefined => USERS.find((u) => u.id === id);

/** A DM with the bot is `D<userId>` (the protocol's rule), so posting to a user ID lands there. */
export const dmOf = (userId: string): string => `D${userId}`;
export const dmOwner = (channel: string): string | undefined =>
  channel.startsWith('D') && userById(channel.slice(1)) ? channel.slice(1) : undefined;

/** The channels one user sees, in the sidebar's order. */
export function channelsFor(userId: string): WorkbenchChannel[] {
  return [
    CHANNELS.treasury,
    CHANNELS.approvals,
    CHANNELS.alerts,
    { id: dmOf(userId), name: BOT.name, kind: 'dm' },
  ];
}

/** A channel ID the bot may post to, with its name; user IDs resolve to their DM. */
export function resolveChannel(channel: string): { id: string; name: string } | undefined {
  const named = Object.values(CHANNELS).find((c) => c.id === channel);
  if (named) return { id: named.id, name: named.name };
  if (userById(channel)) return { id: dmOf(channel), name: 'directmessage' };
  if (dmOwner(channel)) return { id: channel, name: 'directmessage' };
  return undefined;
}

/**
 * A command's text as Slack sends it with escaping on (the manifest's `should_escape: true`): a typed
 * `&`, `<`, `>` as `&amp;`, `&lt;`, `&gt;` (the bot's unwrapLinks undoes exactly that), then a person
 * named with `@` as `<@U…|name>`. An e-mail address (no space before its `@`) stays as typed.
 */
export function escapeCommandMentions(text: string): string {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped.replace(/(^|\s)@([A-Za-z][\w.-]*)/g, (whole, lead: string, name: string) => {
    const user = USERS.find((u) => u.name.toLowerCase() === name.toLowerCase());
    return user ? `${lead}<@${user.id}|${name.toLowerCase()}>` : whole;
  });
}
