// Approving and rejecting through the engine as a person does: bound to what they were shown. The
// engine requires the round (and, to approve, the figures' digest) the person saw; a test that does not
// care about that binding passes the request as it stands now, read just before the click.
import type { ApprovalEngine } from '../../src/approvals/approval-engine.js';
import { figuresDigest } from '../../src/approvals/figures.js';
import type { ApprovalRequest, ClickOptions } from '../../src/approvals/types.js';

/** What a person who saw `request` was shown: its round and the digest of its figures. */
export function seenOf(request: ApprovalRequest): { round: number; figuresDigest: string } {
  return { round: request.round, figuresDigest: figuresDigest(request) };
}

/** The request as it stands (an unknown id is passed on with round 0: the engine answers not-found). */
async function seenNow(engine: Pick<ApprovalEngine, 'get'>, id: string) {
  const request = await engine.get(id);
  return request ? seenOf(request) : { round: 0, figuresDigest: '' };
}

/** `user` approves request `id` as it stands now (its current round and figures). */
export async function approveAsSeen(
  engine: Pick<ApprovalEngine, 'get' | 'approve'>,
  id: string,
  user: string,
  options: ClickOptions = {},
) {
  return engine.approve(id, user, { ...options, ...(await seenNow(engine, id)) });
}

/** `user` rejects request `id` as it stands now (its current round). */
export async function rejectAsSeen(
  engine: Pick<ApprovalEngine, 'get' | 'reject'>,
  id: string,
  user: string,
  reason: string,
  options: ClickOptions = {},
) {
  const { round } = await seenNow(engine, id);
  return engine.reject(id, user, reason, { ...options, round });
}
