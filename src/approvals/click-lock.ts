// A click's turn at the request's lock (Approve, Reject, Cancel): its wait ends at its write deadline,
// so on a busy server a line of clicks that can no longer write holds up none that still can. A click
// whose wait ended is still told the truth when it can be read without the lock: the request has moved
// on (approved by someone else, closed, claimed for sending), and nothing is written.

import { LockTimeoutError } from '../store/index.js';
import type { CoreSections } from './core-sections.js';
import type { ApprovalRequest, ClickOptions } from './types.js';

/** What a click's locked section reaches the core for: its lock, and a read of the request without it. */
export interface ClickLocking {
  locked: CoreSections['locked'];
  get(id: string): Promise<ApprovalRequest | undefined>;
}

/**
 * `locked` for a click: given `writeBy`, its wait for the request's lock ends then (LockTimeoutError).
 * Then the request is read without the lock (nothing is written): `fromRead` answers for a request
 * that can no longer be acted on, else the click was not recorded and the error is thrown. Only the
 * request lock's own wait is answered this way: a LockTimeoutError the section threw (a lock taken
 * inside it, as a delegate's or the limits lock) fails the click as it is, since by then the section
 * may have decided, or written, on what it read.
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
