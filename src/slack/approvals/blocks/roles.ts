// The roles in `/cngn policy`: who reads, files, audits, and approves each kind whose pool differs from
// the general one. Pure: the roles with the names Slack gave, mrkdwn out. Names are escaped.
import type { RequestKind } from '../../../access/index.js';
import { escapeMrkdwn, mentionUser } from '../../../format/mrkdwn.js';

/** A person as Slack knows them; `name` is absent when their profile could not be read. */
export interface NamedPerson {
  id: string;
  name?: string | undefined;
}

/** Who holds a role, with names: every member who is not a guest, or the people and groups named. */
export interface NamedHolders {
  everyone: boolean;
  people: NamedPerson[];
  groups: readonly string[];
}

export interface RolesView {
  readers: NamedHolders;
  requesters: NamedHolders;
  /** Named auditors only; every approver may audit too. */
  auditors: NamedHolders;
  /** Kinds approved by a pool of their own instead of the general approvers. */
  ownPools: Array<{ kind: RequestKind; holders: NamedHolders }>;
}

/** At most this many people are listed per list; the rest are counted. */
const MAX_LISTED = 40;

function person(p: NamedPerson): string {
  return p.name ? `${escapeMrkdwn(p.name)} (${mentionUser(p.id)})` : mentionUser(p.id);
}

export function people(list: NamedPerson[]): string {
  if (list.length === 0) return 'nobody';
  const shown = list.slice(0, MAX_LISTED).map(person).join(', ');
  return list.length > MAX_LISTED ? `${shown} and ${list.length - MAX_LISTED} more` : shown;
}

/** A user group as a mention Slack draws as its handle, pinging nobody in a private answer. */
const groupMention = (id: string) => (/^S[A-Z0-9]+$/.test(id) ? `<!subteam^${id}>` : escapeMrkdwn(id));

function holdersText(holders: NamedHolders): string {
  if (holders.everyone) return 'every member who is not a guest';
  const parts = [
    ...(holders.people.length ? [people(holders.people)] : []),
    ...holders.groups.map((g) => `the members of ${groupMention(g)}`),
  ];
  return parts.length ? parts.join('; ') : 'nobody';
}

const KIND_WORDS: Record<RequestKind, string> = {
  withdraw: 'Withdrawals',
  redeem: 'Redemptions',
  bridge: 'Bridges',
  whitelist: 'Whitelist additions',
  settlement: 'Settlement account changes',
  delegation: 'Delegations',
  unfreeze: 'Lifting the freeze',
  passkey: 'Passkey registrations',
};

export function rolesText(view: RolesView): string {
  const auditors = view.auditors.everyone || view.auditors.people.length || view.auditors.groups.length;
  const lines = [
    '*Roles* (guests and bots hold none)',
    `• Readers (read commands, App Home figures): ${holdersText(view.readers)}${view.readers.everyone ? '' : ', and the approvers'}`,
    `• Requesters (file money requests): ${holdersText(view.requesters)}`,
    `• Auditors (audit commands, read only): ${auditors ? `${holdersText(view.auditors)}, and every approver` : 'the approvers only'}`,
  ];
  if (view.ownPools.length === 0) {
    lines.push('• Approvers of every kind: the approvers below');
  } else {
    for (const pool of view.ownPools) {
      lines.push(
        `• ${KIND_WORDS[pool.kind]} are approved by: ${holdersText(pool.holders)} (in place of the approvers below)`,
      );
    }
    const general = Object.keys(KIND_WORDS).filter((kind) => !view.ownPools.some((p) => p.kind === kind));
    lines.push(
      general.length
        ? `• Every other kind: the approvers below`
        : '• Every kind has a pool of its own: the approvers below approve none of them',
    );
  }
  return lines.join('\n');
}
