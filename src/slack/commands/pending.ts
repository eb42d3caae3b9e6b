// `/cngn pending`: open approval requests (waiting, and in flight), privately.
import type { ApprovalSlackDeps } from '../actions/approval.js';
import { pendingList } from '../blocks/approval-lists.js';

export async function pendingCommand(deps: ApprovalSlackDeps) {
  const requests = await deps.engine.openRequests();
  return pendingList(requests, (deps.now ?? (() => new Date()))(), deps.environmentLabel);
}
