// One info line per step of a request's life that changes its state (filed, approved, executing,
// sent, completed, failed, outcome-unknown, resolved by hand, rejected, cancelled, expired) and per
// freeze and unfreeze of sends. The engine's listeners hear each change once, after it is stored, so a
// line never tells of a step the store does not hold. Each line names the request, its kind, who acted
// and, once the service gave one, its reference: what an operator searches the log by. Nothing a
// person typed about a destination (account numbers, addresses) is written: the request's id leads to
// them in Slack and the audit log.
import type { Logger } from '../log.js';
import type { FreezeChange } from './freeze.js';
import type { ApprovalRequest } from './types.js';

/** Who acted when the history names nobody: the bot itself (a claim, a send, a sweep). */
const BOT_ACTOR = 'cngn-desk';

/** What one persisted step of a request says in the log; undefined when it kept the state. */
function lifecycleLine(
  request: ApprovalRequest,
): { message: string; fields: Record<string, unknown> } | undefined {
  const step = request.history.at(-1);
  if (!step) return undefined;
  const before = request.history.at(-2)?.state;
  if (before === request.state) return undefined;
  const outcome = request.outcome;
  const fields: Record<string, unknown> = {
    requestId: request.id,
    kind: request.kind,
    state: request.state,
    ...(before ? { from: before } : {}),
    action: step.action,
    actor: step.actor ?? BOT_ACTOR,
    ...(step.onBehalfOf ? { onBehalfOf: step.onBehalfOf } : {}),
    ...(request.amount ? { amount: request.amount } : {}),
    ...(outcome?.reference ? { reference: outcome.reference } : {}),
    ...(outcome?.transactionId ? { transactionId: outcome.transactionId } : {}),
    ...(request.round > 1 ? { round: request.round } : {}),
  };
  return { message: before ? `approval request ${request.state}` : 'approval request filed', fields };
}

/** For the engine's onChange: the line of each state change, at info. */
export function logLifecycle(log: Logger): (request: ApprovalRequest) => Promise<void> {
  return async (request) => {
    const line = lifecycleLine(request);
    if (line) log.info(line.message, line.fields);
  };
}

/**
 * For the engine's onFreezeChange: a freeze and its lift, at info (a freeze the chain holds against the
 * store's record is logged as an error where it is found, freeze-chain.ts).
 */
export function logFreezeChanges(log: Logger): (change: FreezeChange) => Promise<void> {
  return async (change) => {
    if ('heldByChain' in change) return;
    if ('frozen' in change) {
      const { by, reason, at } = change.frozen;
      log.info('sends frozen', { actor: by, reason, at, underway: change.underway });
    } else {
      log.info('sends unfrozen', {
        actor: change.by,
        requestId: change.requestId,
        frozenBy: change.lifted.by,
      });
    }
  };
}
