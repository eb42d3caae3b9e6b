// `/cngn audit [n]`: the last n steps of the append-only audit log (default 20, at most 100).
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { auditList } from '../blocks/approval-lists.js';

export function auditCount(arg: string | undefined): number {
  const n = Number.parseInt(arg ?? '', 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 100) : 20;
}

export async function auditCommand(args: string[], deps: ApprovalSlackDeps) {
  const entries = await deps.engine.audit(auditCount(args[0]));
  return auditList(entries, deps.environmentLabel);
}
