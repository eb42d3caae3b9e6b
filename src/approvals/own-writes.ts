// Settling a request whose execution is a write to the bot's own store (a delegation, an unfreeze, a
// passkey registration) when that write went unanswered: the store says whether it was made. One that
// could still land later is barred there before its request is called failed, so "failed" stays true
// (docs/decisions/unanswered-writes-fenced.md). A delegation or lift found there is completed only if
// its approvals pass the executor's last check (send-checks.ts) again; else it is failed, and a lift
// found made is undone by freezing sends again. A registration found written: written-registration.ts.
import type { DelegationBook } from './delegation-requests.js';
import type { FreezeSwitch } from './freeze.js';
import type { PasskeyBook } from './passkey-book.js';
import type { PasskeyWrite } from './passkey-requests.js';
import type { TrackingSteps } from './reconciler.js';
import type { ApprovalsCheck } from './send-checks.js';
import type { ApprovalRequest, EngineLog, RequestOf } from './types.js';
import { revokeWritten, type WrittenRegistrationDeps, writtenProblem } from './written-registration.js';

export interface OwnWriteDeps {
  delegations: Pick<DelegationBook, 'isRecorded'>;
  freeze: Pick<FreezeSwitch, 'settleInterrupted' | 'announce' | 'freeze' | 'current'>;
  passkeys: PasskeyWrite & Pick<PasskeyBook, 'revoke'>;
  core: WrittenRegistrationDeps['core'];
  /** A registration found written counts only if it still reads as filed (its filing seal). */
  signed: WrittenRegistrationDeps['signed'];
  now: () => Date;
  /** The executor's own check just before the write (send-checks.ts): undefined when the approvals hold. */
  approvalsProblem: ApprovalsCheck;
  log?: EngineLog | undefined;
  /** Moves the request, still outcome-unknown, to its final state once (the tracker's, as the reconciler's). */
  finish: TrackingSteps['finish'];
}

const FOUND = "found in the bot's store";
const NOT_FOUND = "not found in the bot's store";
/** How a write found but not completed was settled; the check's note is the request's reason. */
export const FOUND_NOT_APPROVED = "found in the bot's store, but its approvals do not hold";
/** How a registration found written, but not as it was filed, was settled. */
const WRITTEN_NOT_FILED = 'found in the passkey book, but not as it was filed';

/** Settle an outcome-unknown delegation, unfreeze or passkey registration from the store. */
export async function settleOwnWrite(deps: OwnWriteDeps, request: ApprovalRequest): Promise<void> {
  const failed = (action: string, reason: string) =>
    deps.finish(request.id, 'failed', action, { status: 'failed', reason });
  const completed = (action: string) => deps.finish(request.id, 'completed', action, { status: 'completed' });
  // Found counts only if the approvals hold as they did at the write: one a store writer marked
  // outcome-unknown was never checked, and its completion is the bot's own entry on the signed chain.
  // `undo`: what makes the write found take no effect, done before the request is called failed.
  const completedIfApproved = async (action: string, undo?: () => Promise<unknown>) => {
    const problem = await deps.approvalsProblem(request);
    if (!problem) return completed(action);
    deps.log?.error?.('NOT COMPLETED: an interrupted write whose approvals do not hold; it is failed', {
      requestId: request.id,
      kind: request.kind,
      problem,
    });
    await undo?.();
    await failed(FOUND_NOT_APPROVED, problem);
    return undefined;
  };
  switch (request.kind) {
    case 'delegation':
      // Only a completed request's delegation is in effect: an index entry landing late grants nothing.
      if (await deps.delegations.isRecorded(request.id)) await completedIfApproved(FOUND);
      else
        await failed(
          NOT_FOUND,
          'the bot stopped before writing the delegation; nothing is in effect. File it again.',
        );
      return;
    case 'unfreeze': {
      const settled = await deps.freeze.settleInterrupted(request);
      if (!settled.landed) {
        await failed(
          NOT_FOUND,
          'lifting the freeze was not confirmed, and it is now barred from landing later; sends are still frozen. File /cngn unfreeze again.',
        );
      } else if (
        (await completedIfApproved(FOUND, () => freezeAgain(deps, request))) &&
        settled.change &&
        (await nothingFrozen(deps))
      ) {
        // Told as when the lift is answered: the channel hears it, and what was held goes out. Never
        // while a freeze holds (the record's, or the signed chain's): "sends resume" would be untrue.
        deps.freeze.announce(settled.change);
      }
      return;
    }
    case 'passkey': {
      const { credentialId } = request.payload;
      if ((await deps.passkeys.barRegistration(request.id, credentialId, deps.now())) === 'written') {
        // The sealed record is the executor's, written just after its check passed: it is the proof.
        await settleWritten(deps, request, failed, () => completed('found in the passkey book'));
      } else {
        await failed(
          'not found in the passkey book',
          'writing the passkey was not confirmed, and it is now barred from landing later; it does not count. Register it again.',
        );
      }
      return;
    }
    default:
      return;
  }
}

/**
 * Who undoes a write found in the store that does not hold: no person. A freeze by it may be lifted by
 * any approver.
 */
export const BY_THE_BOT = 'the bot';

/**
 * A lift that landed but whose approvals do not hold: sends are frozen again (told to the channel as any
 * freeze), so the request's "failed" and the state of sends agree. Already frozen: nothing changes.
 */
function freezeAgain(deps: OwnWriteDeps, request: ApprovalRequest): Promise<unknown> {
  return deps.freeze.freeze(
    BY_THE_BOT,
    `${request.id} lifted the freeze, but its approvals do not hold, so it failed; sends are frozen again until another unfreeze is approved`,
  );
}

/** A registration found written: completed if written as filed; else its passkey revoked, then failed. */
async function settleWritten(
  deps: OwnWriteDeps,
  request: RequestOf<'passkey'>,
  failed: (action: string, reason: string) => Promise<unknown>,
  completed: () => Promise<unknown>,
): Promise<void> {
  const problem = await writtenProblem(deps, request);
  if (!problem) {
    await completed();
    return;
  }
  deps.log?.error?.('NOT COMPLETED: a registration found written was changed outside the bot; it is failed', {
    requestId: request.id,
    problem,
  });
  await revokeWritten(deps, request, BY_THE_BOT);
  await failed(WRITTEN_NOT_FILED, problem);
}

/** Whether no freeze holds now, read fresh from the record and the signed chain; a failed read: no. */
function nothingFrozen(deps: OwnWriteDeps): Promise<boolean> {
  return deps.freeze.current({ fresh: true }).then(
    (freeze) => freeze === undefined,
    () => false,
  );
}
