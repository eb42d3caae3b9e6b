// The approval core as the parts around it see it: its locks, its conditional write and its notices
// (ApprovalCore in approval-core.ts is the one implementation).
import type { ApprovalRequest, ClickOptions, LimitFigures } from './types.js';

/** A write inside a locked section: audited unless said otherwise, and part of a click when one is given. */
export interface WriteOptions {
  audit?: boolean;
  click?: ClickOptions;
}

/** A notice is said once per round unless `again`, and only on a request `when` accepts. */
export interface NoticeOptions {
  again?: boolean;
  when?: (request: ApprovalRequest) => boolean;
}

/**
 * What the parts around the approval core (executor, tracker, reconciler, reminders, the re-check,
 * revocations) reach it for: its locks, its conditional write and its notices. Everything else they
 * use (repository, custody gateway, clock, log) they are given.
 */
export interface CoreSections {
  /**
   * Read-check-write under the request's lock; the section runs again on a fresh read if its write was
   * refused. Given `waitUntil` (Date.now()), a wait for the lock past it ends in LockTimeoutError.
   */
  locked<T>(
    id: string,
    fn: (request: ApprovalRequest | undefined) => Promise<T>,
    waitUntil?: number,
  ): Promise<T>;
  /** The delegations lock, always taken after a request's lock, never before one. */
  underDelegationsLock<T>(fn: () => Promise<T>): Promise<T>;
  /** Inside `locked`: persist `next` only if the request is still exactly `read`, else throw (the section runs again). */
  write(read: ApprovalRequest, next: ApprovalRequest, options?: WriteOptions): Promise<void>;
  /**
   * Inside `locked`: `write` for an approval, which a final one only makes within the daily limit
   * (under the limits lock). Refused: nothing written, and the figures are returned.
   */
  writeApproval(
    read: ApprovalRequest,
    next: ApprovalRequest,
    options?: WriteOptions,
  ): Promise<LimitFigures | undefined>;
  /** Every request not yet settled, in every environment. */
  openRequests(): Promise<ApprovalRequest[]>;
  /** Tell every listener of a persisted change. */
  notify(request: ApprovalRequest): Promise<void>;
  /** Record a notice on the request (audited, state unchanged) and tell the listeners. */
  notice(
    id: string,
    action: string,
    note: string,
    options?: NoticeOptions,
  ): Promise<ApprovalRequest | undefined>;
}
