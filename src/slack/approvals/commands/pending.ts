// `/cngn pending`: open approval requests (waiting, and in flight), privately. An approver with two or
// more requests waiting for them (App Home's "Waiting for you") is offered Review all.

import type { ApprovalSlackDeps } from '../../types.js';
import { type FeatureSubcommand, READERS } from '../../types.js';
import { pendingList } from '../blocks/lists.js';
import { REVIEW_ALL_MIN, reviewAllButton } from '../blocks/review-all.js';

async function pendingCommand(deps: ApprovalSlackDeps, user: string) {
  const now = (deps.now ?? (() => new Date()))();
  const requests = await deps.engine.openRequests();
  const list = pendingList(requests, now, deps.environmentLabel, (r) => deps.engine.approvalsShown(r));
  const waiting = await deps.engine.waitingFor(user, now, requests);
  if (waiting.length < REVIEW_ALL_MIN) return list;
  return {
    text: list.text,
    blocks: [...list.blocks, { type: 'actions' as const, elements: [reviewAllButton(waiting.length)] }],
  };
}

export const PENDING_SUBCOMMAND: FeatureSubcommand<'approvals', ApprovalSlackDeps> = {
  name: 'pending',
  usage: 'pending',
  summary: 'open approval requests',
  who: READERS,
  example: 'pending',
  needs: 'approvals',
  run: (command, deps) => pendingCommand(deps, command.userId),
};
