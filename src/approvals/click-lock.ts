// A click's turn at the request's lock (Approve, Reject, Cancel): its wait ends at its write deadline,
// so on a busy server a line of clicks that can no longer write holds up none that still can. A click
// whose wait ended is still told the truth when a read without the lock makes it certain: the request
// is gone, has moved on (approved by someone else, closed, claimed for sending), or was filed by someone
// else (a Cancel). Nothing is written. A request read pending past its expiry is not said to have
// expired: the lock's holder may have read the clock before the expiry and still approve it.

import { LockTimeoutError } from '../store/index.js';
import type { CoreSections } from './core-sections.js';
import type { ApprovalRequest, ClickOptions, Refusal } from './types.js';

/** What a click's locked section reaches the core for: its lock, and a read of the request without it. */
export interface ClickLocking {
  locked: CoreSections['locked'];
  get(id: string): Promise<ApprovalRequest | undefined>;
}

/** A click's refusal told from a read without the lock: nothing was written. */
export type ReadRefusal = { ok: false; reason: Refusal; request?: ApprovalRequest };

/** A click's rules a read alone can apply, each in the order its locked section applies it. */
export interface ReadRules {
  /** Why the request, in the state it is in, can no longer be acted on by this click. */
  moved: (request: ApprovalRequest) => Refusal | undefined;
  /** A refusal on what never changes (who filed it). */
  fixed?: ((request: ApprovalRequest) => Refusal | undefined) | undefined;
}

/**
 * The refusal a read without the lock makes certain: gone, moved on, then `fixed`, in the order the
 * locked section applies these three (it may refuse an expired request before `fixed`: both are
 * true). Undefined when only the locked section can judge (an expiry, the policy, delegations,
 * limits): the click was then not recorded.
 */
export function refusedFromRead(
  request: ApprovalRequest | undefined,
  rules: ReadRules,
): ReadRefusal | undefined {
  if (!request) return { ok: false, reason: 'not-found' };
  const reason = rules.moved(request) ?? rules.fixed?.(request);
  return reason ? { ok: false, reason, request } : undefined;
}

/**
 * `locked` for a click: given `writeBy`, its wait for the request's lock ends then (LockTimeoutError).
 * Then the request is read without the lock (nothing is written): `fromRead` answers for a request
 * this click certainly cannot act on (refusedFromRead), else the click was not recorded and the error
 * is thrown. Only the request lock's own wait is answered this way: a LockTimeoutError the section
 * threw (a lock taken inside it, as a delegate's or the limits lock) fails the click as it is, since by
 * then the section may have decided, or written, on what it read.
 */
export async function clickLocked<T>(
  core: ClickLocking,
  id: string,
  click: ClickOptions,
  fn: (request: ApprovalRequest | undefined) => Promise<T>,
  fromRead: (request: ApprovalRequest | undefined) => T | undefined,
): Promise<T> {
  if (click.writeBy === undefined) return core.locked(id, fn);
  let fromSection: unknown;
  const section = async (request: ApprovalRequest | undefined): Promise<T> => {
    try {
      return await fn(request);
    } catch (error) {
      fromSection = error;
      throw error;
    }
  };
  try {
    return await core.locked(id, section, click.writeBy);
  } catch (error) {
    if (!(error instanceof LockTimeoutError) || error === fromSection) throw error;
    const answer = fromRead(await core.get(id));
    if (answer === undefined) throw error;
    return answer;
  }
}
