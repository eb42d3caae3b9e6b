// The policy a start runs with, from the settled configuration with its defaults applied, as the audit
// chain records it (approvals/policy-record.ts). The one place a new policy setting is added.
import {
  DEFAULT_LIMIT_WINDOW_MS,
  DEFAULT_REMINDERS,
  type PolicySnapshot,
  parseReminderPoints,
  parseTiers,
  policySnapshot,
} from '../approvals/index.js';
import type { Config } from '../config.js';

export function policyOf(config: Config, environment: string): PolicySnapshot {
  return policySnapshot({
    environment,
    approvers: { users: config.approvers, group: config.approverGroup },
    tiers: parseTiers(config.approvalTiers),
    limitWindowMs: config.limitWindowMs ?? DEFAULT_LIMIT_WINDOW_MS,
    dailyLimit: config.dailyLimit,
    ttlMs: config.approvalTtlMs,
    reminders: config.approvalReminders ?? parseReminderPoints(DEFAULT_REMINDERS),
    notify: config.approvalNotify ?? 'both',
    startFrozen: config.startFrozen,
  });
}
