// The sweeps that close requests nobody can act on any more: pending requests past their time
// (every sweep), and requests of another environment that these credentials must never send (at start).

import type { ApprovalCore } from './approval-core.js';
import { bindingProblem, closeUnsendable } from './binding.js';
import { ENVIRONMENTS } from './repository.js';
import type { ApprovalRequest } from './types.js';

/** The periodic sweep: expire every pending request past its time. */
export async function expireDue(core: ApprovalCore): Promise<ApprovalRequest[]> {
  const expired: ApprovalRequest[] = [];
  for (const open of await core.repo.openRequests()) {
    if (!core.isExpired(open, core.now())) continue;
    // One request the store will not expire now does not hold up the others: the next sweep retries it.
    try {
      const done = await core.locked(open.id, async (r) => (r ? core.expireIfDue(r, core.now()) : undefined));
      if (done) {
        expired.push(done);
        await core.notify(done);
      }
    } catch (error) {
      core.options.log?.warn('request not expired; will retry', {
        requestId: open.id,
        error: String(error),
      });
    }
  }
  return expired;
}

/**
 * Start-up: requests left open in another environment that were never sent (pending, approved) are
 * closed with the reason, so nobody approves them and nothing sends them with these credentials.
 * Those already sent stay as they are, for when their environment is back.
 */
export async function closeOtherEnvironments(core: ApprovalCore): Promise<ApprovalRequest[]> {
  const closed: ApprovalRequest[] = [];
  for (const environment of ENVIRONMENTS) {
    if (environment === core.binding.environment) continue;
    for (const open of await core.repo.openRequests(environment)) {
      if (open.state !== 'pending' && open.state !== 'approved') continue;
      const done = await core.locked(open.id, async (r) => {
        if (r?.state !== 'pending' && r?.state !== 'approved') return undefined;
        const problem = bindingProblem(r, core.binding);
        if (!problem) return undefined;
        const next = closeUnsendable(r, problem, core.now());
        await core.write(r, next);
        return next;
      });
      if (done) {
        closed.push(done);
        await core.notify(done);
      }
    }
  }
  return closed;
}

/**
 * Replicas take turns: one sweep per interval across all of them, so polls are not doubled; whoever
 * claims the interval's slot in the shared store sweeps. `daily` runs in every process first. A
 * replica whose last sweep is still running (`busy`) does not claim the slot: it would skip the sweep
 * it claimed, and while its sweep ran for minutes no replica would sweep (take over a dead replica's
 * sends, expire, poll, reconcile).
 */
export function sweepInTurn(
  core: ApprovalCore,
  instanceId: string,
  every: number,
  work: { daily: () => Promise<void>; sweep: () => Promise<void>; busy: () => boolean },
): () => Promise<void> {
  return async () => {
    await work.daily();
    if (work.busy()) return;
    const slot = Math.floor(Date.now() / every);
    if (await core.options.store.setIfAbsent(`approvals:sweep:${slot}`, instanceId, every * 2)) {
      await work.sweep();
    }
  };
}
