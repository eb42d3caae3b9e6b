// How the engine stops: background work drained within a bound (then the executions still under way
// left, for recovery after a restart), this process's execution leases ended, and what is new in the
// audit trail archived, each within its own bound so that a slow store cannot hold the shutdown.

import { settledWithin } from '../store/index.js';
import type { EngineAudit } from './engine-audit.js';
import type { Executor } from './executor.js';
import type { EngineLog } from './types.js';

export interface ShutDownDeps {
  /** Resolves when the engine's background work started so far has finished. */
  idle: () => Promise<void>;
  executor: Pick<Executor, 'abandonUnfinished' | 'releaseLeases'>;
  trail: Pick<EngineAudit, 'stop'>;
  log: EngineLog | undefined;
}

/**
 * Wait for background work for at most `drainMs`. Past it, the executions still under way are left:
 * each answer not yet in the store is logged with its reference, and recovery after a restart finds the
 * request (sent, or maybe sent, but unrecorded) and reconciles it. Then leases this process holds are
 * ended, if the store takes it in time, and the audit archive written.
 */
export async function shutDown(deps: ShutDownDeps, drainMs: number): Promise<void> {
  if (!(await settledWithin(deps.idle(), drainMs))) {
    deps.executor.abandonUnfinished();
    // The retries stop at once; a store write already under way may not return before we go.
    await settledWithin(deps.idle(), RELEASE_BOUND_MS);
  }
  const released = await settledWithin(
    deps.executor.releaseLeases().then(
      () => true,
      (error: unknown) => {
        deps.log?.warn('execution leases not ended at shutdown; they run out by themselves', {
          error: String(error),
        });
        return true;
      },
    ),
    RELEASE_BOUND_MS,
  );
  if (!released) {
    deps.log?.warn('execution leases not ended at shutdown in time; they run out by themselves');
  }
  // A clean stop archives what is new, within a bound (the next start or sweep writes it otherwise).
  if (!(await settledWithin(deps.trail.stop(), ARCHIVE_AT_STOP_MS))) {
    deps.log?.warn('the audit archive was not written at shutdown in time');
  }
}

/** How long shutdown waits for the store to end this process's execution leases. */
const RELEASE_BOUND_MS = 2_000;
/** How long shutdown waits for the audit segment of what is new. */
const ARCHIVE_AT_STOP_MS = 3_000;
