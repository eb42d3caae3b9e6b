// Who approves, checked across variables: an approvals channel and its approvers come together, and
// the top tier of CNGN_APPROVAL_TIERS can be reached by the approvers named.

import { parseTiers, poolProblems } from './access/index.js';

/** Approvals are optional (read commands work without them), but half a set-up is a mistake. */
export function approvalSetUpProblems(has: (name: string) => boolean): string[] {
  const approvers = has('CNGN_APPROVERS') || has('CNGN_APPROVER_GROUP');
  if (has('CNGN_APPROVALS_CHANNEL') && !approvers) {
    return ['CNGN_APPROVERS or CNGN_APPROVER_GROUP: name at least one approver, or nobody can approve'];
  }
  if (!has('CNGN_APPROVALS_CHANNEL') && approvers) {
    return ['CNGN_APPROVALS_CHANNEL: required with approvers — the channel ID where requests are posted'];
  }
  return [];
}

export function tierProblems(
  env: Record<string, string | undefined>,
  has: (name: string) => boolean,
): string[] {
  const problems: string[] = [];
  try {
    const tiers = parseTiers(env.CNGN_APPROVAL_TIERS?.trim() || '0:1');
    // With a fixed list (no group), the top tier — which settlement changes always need — must be
    // reachable, or such requests could never be approved.
    const approvers = new Set(
      (env.CNGN_APPROVERS ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
    const top = Math.max(...tiers.map((tier) => tier.approvals));
    problems.push(...poolProblems(env, tiers));
    if (approvers.size > 0 && !has('CNGN_APPROVER_GROUP') && approvers.size < top) {
      problems.push(
        `CNGN_APPROVERS: ${approvers.size} approver(s) named, but CNGN_APPROVAL_TIERS needs ${top} distinct approvals at its top tier (and every settlement change) — name at least ${top}, ${top + 1} if approvers also file requests`,
      );
    }
  } catch (error) {
    problems.push(`CNGN_APPROVAL_TIERS: ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}
