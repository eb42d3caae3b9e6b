// The effective policy as a snapshot the audit chain can hold and compare: an ordered list of named
// settings, each a value in words or a set of Slack IDs, its fingerprint, and the difference between
// two snapshots in words (the setting `tiers`, stored as `0:1,1000000:2`, reads `approvals needed by
// amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 → …`: policy-words.ts). A person or group in a
// line is its ID as a token, `@U0ADA`, `@S0TREASURY`, not markup: where the line is shown, the token
// becomes a mention (format/mrkdwn.ts). Pure: no store, no Slack.
import { createHash } from 'node:crypto';
import type { ApprovalTier, Holders, SigningRule } from '../access/index.js';
import { canonicalJson } from '../audit/index.js';
import { naira } from '../format/display.js';
import { fullDuration } from './extend.js';
import { settingName, settingWords } from './policy-words.js';
import type { ReminderPoint } from './reminders.js';
import { type PolicySetting, REQUEST_KINDS, type RequestKind } from './types.js';

/** The settings in a fixed order, so a change reads in the same order every time. */
export type PolicySnapshot = PolicySetting[];

const SLACK_USER = /^[UW][A-Z0-9]{2,}$/;
const SLACK_GROUP = /^S[A-Z0-9]{2,}$/;
const isGroup = (id: string) => SLACK_GROUP.test(id);

const EVERYONE = 'every member who is not a guest';
const NOBODY = 'nobody';
/** A kind without a pool of its own: a change to the general pool then shows once, under `approvers`. */
const GENERAL_POOL = 'the approvers above';
const APPROVERS_ONLY = 'the approvers only';

/** What the policy is made of, as settled at start. The roles are optional until the settings exist. */
export interface PolicyInputs {
  /** The service environment (`sandbox`, `live`). */
  environment: string;
  /** The general pool: CNGN_APPROVERS and CNGN_APPROVER_GROUP. */
  approvers: { users: readonly string[]; group?: string | undefined };
  /** The kinds with a pool of their own; a kind left out is approved by the general pool. */
  approversByKind?: Partial<Record<RequestKind, Holders>> | undefined;
  readers?: Holders | undefined;
  requesters?: Holders | undefined;
  auditors?: Holders | undefined;
  tiers: readonly ApprovalTier[];
  limitWindowMs: number;
  /** Canonical decimal ₦; absent: no daily limit. */
  dailyLimit?: string | undefined;
  ttlMs: number;
  reminders: readonly ReminderPoint[];
  /** CNGN_APPROVAL_NOTIFY. */
  notify: string;
  /** CNGN_START_FROZEN. */
  startFrozen?: boolean | undefined;
  /** CNGN_SIGNED_APPROVALS in words, with the signing origin; absent while approvals are not signed. */
  signedApprovals?: string | undefined;
}

/** People first, then user groups, each in ID order: one order for one set. */
const ids = (values: Iterable<string>): string[] =>
  [...new Set(values)].sort(
    (a, b) => Number(isGroup(a)) - Number(isGroup(b)) || (a < b ? -1 : a > b ? 1 : 0),
  );

function holdersValue(holders: Holders): string | string[] {
  if (holders.everyone) return EVERYONE;
  const all = ids([...holders.users, ...holders.groups]);
  return all.length === 0 ? NOBODY : all;
}

/** `0:1,1000000:2`: each tier's smallest amount in naira (no trailing zeros) and its approvals. */
function tiersText(tiers: readonly ApprovalTier[]): string {
  return tiers.map((tier) => `${tier.min.toPlainString()}:${tier.approvals}`).join(',');
}

export function policySnapshot(inputs: PolicyInputs): PolicySnapshot {
  const settings: PolicySnapshot = [];
  const add = (name: string, value: string | string[]) => settings.push({ name, value });
  const roles = [
    ['readers', inputs.readers],
    ['requesters', inputs.requesters],
    ['auditors', inputs.auditors],
  ] as const;
  for (const [name, holders] of roles) {
    if (!holders) continue;
    const value = holdersValue(holders);
    // Approvers may always audit: an unset auditors list leaves it to them.
    add(name, name === 'auditors' && value === NOBODY ? APPROVERS_ONLY : value);
  }
  const pool = ids([...inputs.approvers.users, ...(inputs.approvers.group ? [inputs.approvers.group] : [])]);
  add('approvers', pool.length === 0 ? NOBODY : pool);
  for (const kind of REQUEST_KINDS) {
    const own = inputs.approversByKind?.[kind];
    add(`approvers for ${kind}`, own ? holdersValue(own) : GENERAL_POOL);
  }
  add('tiers', tiersText(inputs.tiers));
  add('daily limit', inputs.dailyLimit ? naira(inputs.dailyLimit) : 'none');
  // Every unit: with two, 26 h and 26 h 30 min read alike and a change between them went unrecorded.
  // Up to two units the text is as it always was, so a policy on record keeps its fingerprint.
  add('limit window', fullDuration(inputs.limitWindowMs));
  add('request lifetime', fullDuration(inputs.ttlMs));
  add('reminders', inputs.reminders.length ? inputs.reminders.map((p) => p.label).join(',') : 'none');
  add('approvers are told', inputs.notify);
  add('environment', inputs.environment);
  add('frozen at start', inputs.startFrozen ? 'yes' : 'no');
  // Recorded only once switched on: an install that never signs sees no change in its policy.
  if (inputs.signedApprovals) add(SIGNED_APPROVALS, inputs.signedApprovals);
  return settings;
}

/** The setting that says which approvals are signed, and where (recorded only while the rule is not off). */
const SIGNED_APPROVALS = 'signed approvals';

/** `all at https://desk.example` or `above ₦250,000.00 at …`: the setting's words; undefined when off. */
export function signedApprovalsText(rule: SigningRule, origin: string): string | undefined {
  if (rule.mode === 'off') return undefined;
  const which = rule.mode === 'above' ? `above ${naira(rule.amount.toString())}` : rule.mode;
  return `${which} at ${origin}`;
}

/** `snapshot` with its signing rule now `words` (undefined: off, no setting), in policySnapshot's order. */
export function withSignedApprovals(snapshot: PolicySnapshot, words: string | undefined): PolicySnapshot {
  const others = snapshot.filter((s) => s.name !== SIGNED_APPROVALS);
  return words ? [...others, { name: SIGNED_APPROVALS, value: words }] : others;
}

/** SHA-256 of the snapshot's canonical JSON: equal policies, equal fingerprints. */
export function fingerprint(snapshot: PolicySnapshot): string {
  return createHash('sha256').update(canonicalJson(snapshot), 'utf8').digest('hex');
}

/** How an ID is written in a line: a person or user group as `@ID`, shown as a mention; anything else as it is. */
function mentionOf(id: string): string {
  return SLACK_USER.test(id) || SLACK_GROUP.test(id) ? `@${id}` : id;
}

/** A setting's value in a line: its words (policy-words.ts), or its people and groups as mentions. */
function valueText(name: string, value: string | string[]): string {
  return typeof value === 'string' ? settingWords(name, value) : value.map(mentionOf).join(', ');
}

/** `+@U1 +@U2 −@U3`: who was added, then who was removed. */
function setDifference(added: readonly string[], removed: readonly string[]): string {
  return [
    ...ids(added).map((id) => `+${mentionOf(id)}`),
    ...ids(removed).map((id) => `−${mentionOf(id)}`),
  ].join(' ');
}

const same = (a: string | string[], b: string | string[]) => canonicalJson(a) === canonicalJson(b);

/**
 * One line per setting that differs, in the newer snapshot's order: two sets as who was added and
 * removed, anything else as `before → after`, with the values as set when the two read alike. A
 * setting only one side has reads `not recorded`.
 */
export function describeChanges(before: PolicySnapshot, after: PolicySnapshot): string[] {
  const lines: string[] = [];
  const earlier = new Map(before.map((s) => [s.name, s.value]));
  for (const { name, value } of after) {
    const old = earlier.get(name);
    earlier.delete(name);
    if (old !== undefined && same(old, value)) continue;
    if (Array.isArray(old) && Array.isArray(value)) {
      const added = value.filter((id) => !old.includes(id));
      const removed = old.filter((id) => !value.includes(id));
      lines.push(`${settingName(name)}: ${setDifference(added, removed)}`);
    } else {
      const was = old === undefined ? 'not recorded' : valueText(name, old);
      const now = valueText(name, value);
      // Two texts that read alike (`500:1,1000000:2` and `0:1,1000000:2`): the change is in the text.
      const asSet = was === now ? ` (as set: ${String(old)} → ${String(value)})` : '';
      lines.push(`${settingName(name)}: ${was} → ${now}${asSet}`);
    }
  }
  for (const [name, old] of earlier)
    lines.push(`${settingName(name)}: ${valueText(name, old)} → not recorded`);
  return lines;
}

/** Every setting, for the first record of a policy. */
export function describePolicy(snapshot: PolicySnapshot): string[] {
  return snapshot.map(({ name, value }) => `${settingName(name)}: ${valueText(name, value)}`);
}

/** At most this many people of a group's line are named (each a mention in the post, which notifies). */
const MEMBERS_NAMED = 20;

/** `members of @S1: +@U1 −@U2` (past MEMBERS_NAMED, `and N more`: the entry's lists hold them all). */
export function membershipLine(group: string, added: readonly string[], removed: readonly string[]): string {
  return `members of ${mentionOf(group)}: ${cappedDifference(added, removed)}`;
}

/**
 * A group's members as read: how many, and who joined and left since those last recorded (`members of
 * @S1: 3 members, +@U1 −@U2`), or `first recorded` when none were; never every member by name (the
 * entry's `policy.members` lists them), so a large group's post neither pings everyone nor overflows.
 */
export function membersLine(
  group: string,
  members: readonly string[],
  change: { added: readonly string[]; removed: readonly string[]; first: boolean },
): string {
  const count = members.length === 0 ? NOBODY : `${members.length} member${members.length === 1 ? '' : 's'}`;
  const since = change.first ? 'first recorded' : cappedDifference(change.added, change.removed);
  return `members of ${mentionOf(group)}: ${since ? `${count}, ${since}` : count}`;
}

/** setDifference naming at most MEMBERS_NAMED people, then `and N more`. */
function cappedDifference(added: readonly string[], removed: readonly string[]): string {
  const named = ids(added).length + ids(removed).length;
  if (named <= MEMBERS_NAMED) return setDifference(added, removed);
  const shownAdded = ids(added).slice(0, MEMBERS_NAMED);
  const shownRemoved = ids(removed).slice(0, MEMBERS_NAMED - shownAdded.length);
  return `${setDifference(shownAdded, shownRemoved)} and ${named - MEMBERS_NAMED} more`;
}
