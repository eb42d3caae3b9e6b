// The freeze of sends as people and the start-up ask for it through the engine: an approver freezes,
// CNGN_START_FROZEN freezes before anything is sent, an approver files the unfreeze another approves;
// and once the freeze is lifted, what it held goes out at once. The switch itself is freeze.ts.

import type { ApprovalPolicy } from '../access/index.js';
import type { ApprovalCore } from './approval-core.js';
import { freezeReason } from './draft.js';
import type { Executor } from './executor.js';
import { type FreezeResult, START_FROZEN_ACTOR, UnfreezeRefusedError } from './freeze.js';
import type { ApprovalRequest, EngineLog, Freeze, RequestOf } from './types.js';

/** Who is an approver in their own right (CNGN_APPROVERS or its group); a delegate is not. */
type Approvers = Pick<ApprovalPolicy, 'isApprover'>;
/** And who may approve an unfreeze, and how many must. */
type UnfreezePool = Approvers & Pick<ApprovalPolicy, 'approverIds' | 'requiredFor'>;

export type UnfreezeFiling =
  | { ok: true; request: RequestOf<'unfreeze'> }
  | { ok: false; reason: 'not-frozen' | 'already-waiting' | 'not-approver'; request?: ApprovalRequest }
  | TooFewApprovers;

/**
 * An unfreeze `eligible` approvers could approve (its pool less its requester and the one who froze),
 * where `needed` must: never approved, so not filed. `freezerMayFile`: the one who froze could file one
 * that enough could approve.
 */
interface TooFewApprovers {
  ok: false;
  reason: 'too-few-approvers';
  needed: number;
  eligible: number;
  frozenBy: string;
  freezerMayFile: boolean;
}

/** A freeze refused before anything is read: its reason is not a sentence of FREEZE_REASON_MIN..MAX. */
export type FreezeRefusal = { ok: false; reason: 'bad-reason' } | { ok: false; reason: 'not-approver' };

/**
 * `/cngn freeze`: an approver (in their own right, not a delegate) stops every send at once, saying
 * why in FREEZE_REASON_MIN to FREEZE_REASON_MAX characters. Once this resolves, no send starts on any
 * replica until the freeze is lifted (see freeze.ts).
 */
export async function freezeSends(
  core: ApprovalCore,
  policy: Approvers,
  user: string,
  reason: string,
): Promise<FreezeResult | FreezeRefusal> {
  if (!freezeReason.safeParse(reason).success) return { ok: false, reason: 'bad-reason' };
  if (!(await policy.isApprover(user))) return { ok: false, reason: 'not-approver' };
  return core.freeze.freeze(user, reason);
}

/**
 * CNGN_START_FROZEN: freeze before anything is sent, unless already frozen. Made before Slack is
 * connected, so nobody is told yet: `announce` tells the listeners once they are there (the
 * approvals channel, the banners), and does nothing when the freeze in place was told already (one
 * left untold by a start that stopped part-way is told now).
 */
export async function freezeAtStart(core: ApprovalCore): Promise<Freeze & { announce: () => void }> {
  const result = await core.freeze.freeze(
    START_FROZEN_ACTOR,
    'the bot was started with CNGN_START_FROZEN set (after restoring a backup, say)',
    { quiet: true },
  );
  const announce = () => {
    if (result.ok || result.recorded)
      core.freeze.announce({ frozen: result.freeze, underway: result.underway });
  };
  return { ...result.freeze, announce };
}

/**
 * `/cngn unfreeze`: filed as a request that an approver other than the one who froze must approve;
 * executing it lifts the freeze. Refused when nothing is frozen or an unfreeze already waits.
 */
export async function fileUnfreeze(
  core: ApprovalCore,
  policy: UnfreezePool,
  user: string,
): Promise<UnfreezeFiling> {
  if (!(await policy.isApprover(user))) return { ok: false, reason: 'not-approver' };
  // Read fresh: the unfreeze names the freeze the chain holds now, not one a rendering cached.
  const freeze = await core.freeze.current({ fresh: true });
  if (!freeze) return { ok: false, reason: 'not-frozen' };
  const tooFew = await tooFewToApprove(policy, user, freeze);
  if (tooFew) return tooFew;
  try {
    const request = await core.file({
      kind: 'unfreeze',
      payload: { frozenBy: freeze.by, frozenAt: freeze.at, reason: freeze.reason },
      display: {},
      requester: user,
    });
    return { ok: true, request: request as RequestOf<'unfreeze'> };
  } catch (error) {
    if (!(error instanceof UnfreezeRefusedError)) throw error;
    return { ok: false, reason: error.reason, ...(error.waiting ? { request: error.waiting } : {}) };
  }
}

/**
 * Whether an unfreeze `user` files could never get its approvals: the approvers of its pool other than
 * its requester and the one who froze, against the lowest tier's count. A pool that cannot be read now
 * (a Slack group) refuses nothing: each approval is checked as it comes.
 */
async function tooFewToApprove(
  policy: UnfreezePool,
  user: string,
  freeze: Freeze,
): Promise<TooFewApprovers | undefined> {
  const needed = policy.requiredFor(undefined, 'unfreeze');
  const pool = await policy.approverIds('unfreeze').catch(() => undefined);
  if (!pool) return undefined;
  const others = pool.filter((id) => id !== freeze.by);
  const eligible = others.filter((id) => id !== user).length;
  if (eligible >= needed) return undefined;
  const freezerMayFile = pool.includes(freeze.by) && others.length >= needed;
  return { ok: false, reason: 'too-few-approvers', needed, eligible, frozenBy: freeze.by, freezerMayFile };
}

/** Send every approved request now (after a freeze is lifted); the claim keeps each to one call. */
export async function sendApproved(core: ApprovalCore, executor: Executor, log?: EngineLog): Promise<void> {
  for (const request of await core.openRequests()) {
    if (request.state !== 'approved') continue;
    await executor.execute(request.id).catch((error: unknown) => {
      log?.warn('approved request not started after the freeze was lifted; will retry', {
        requestId: request.id,
        error: String(error),
      });
    });
  }
}
