// The policy a start runs with, from the settled configuration with its defaults applied, as the audit
// chain records it (approvals/policy-record.ts). The one place a new policy setting is added.

import type { Holders, RequestKind } from '../access/index.js';
import { holdersOf, parseTiers, type SlackIds } from '../access/index.js';
import {
  DEFAULT_LIMIT_WINDOW_MS,
  DEFAULT_REMINDERS,
  type PolicySnapshot,
  parseReminderPoints,
  policySnapshot,
  signedApprovalsText,
} from '../approvals/index.js';
import type { Config } from '../config.js';

/** A role list as set: unset is everyone (readers, requesters) or nobody besides approvers (auditors). */
const holdersAsSet = (ids: SlackIds | undefined, unset: 'everyone' | 'nobody'): Holders =>
  ids ? holdersOf(ids) : { everyone: unset === 'everyone', users: [], groups: [] };

export function policyOf(config: Config, environment: string): PolicySnapshot {
  return policySnapshot({
    environment,
    approvers: { users: config.approvers, group: config.approverGroup },
    readers: holdersAsSet(config.roles?.readers, 'everyone'),
    requesters: holdersAsSet(config.roles?.requesters, 'everyone'),
    auditors: holdersAsSet(config.roles?.auditors, 'nobody'),
    approversByKind: Object.fromEntries(
      Object.entries(config.roles?.approversByKind ?? {}).map(([kind, ids]) => [
        kind,
        holdersAsSet(ids, 'nobody'),
      ]),
    ) as Partial<Record<RequestKind, Holders>>,
    tiers: parseTiers(config.approvalTiers),
    limitWindowMs: config.limitWindowMs ?? DEFAULT_LIMIT_WINDOW_MS,
    dailyLimit: config.dailyLimit,
    ttlMs: config.approvalTtlMs,
    reminders: config.approvalReminders ?? parseReminderPoints(DEFAULT_REMINDERS),
    notify: config.approvalNotify ?? 'both',
    startFrozen: config.startFrozen,
    // Off is no setting at all, whatever the signing URL (the workbench's changes at every start).
    signedApprovals: config.signing && signedApprovalsText(config.signing.rule, config.signing.origin),
  });
}
