// An alert's post (or a digest's, or a dead letter's re-post) runs under a store lock named for it,
// which the store keeps renewed for as long as its holder is alive and the post under way, up to a
// cap. The outbox's claim has a fixed lease; a post Slack kept open past it let another replica take
// the claim and post the alert again. The cap is the claim's lease plus a margin, so the lock is
// still held when that lease lapses: a replica that takes the lapsed claim finds the lock held, waits
// briefly, and lets go (a later scan finds the alert delivered). Only a post still under way at the
// cap (lease + margin: a sink that hangs) lets the lock go, with a log line, so another replica can
// take the alert over rather than every scan waiting on it for ever; such a post may then be posted
// twice. A digest's entries are claimed one by one but posted under the digest's lock: an entry an
// open digest carries is left to it (Outbox.stillToPostAlone, Outbox.claimForDigest), never posted
// under its own; and a digest leaves out an entry whose own post is under way (postUnderWay), whose
// claim it may have taken once that claim lapsed (docs/decisions/outbox-owns-slack-retries.md).
import type { Logger } from '../log.js';
import { type Store, StoreErrorCode } from '../store/index.js';

/** How long a deliverer waits for another's post of the same alert before leaving it to a later scan. */
const POST_LOCK_WAIT_MS = 2_000;
/** The claim's lease when the caller names none: the deliverer's and the dead-letter desk's default. */
export const CLAIM_LEASE_MS = 60_000;
/**
 * How long the lock outlives the claim's lease: twice the Slack client's 10 s timeout, which also
 * covers a digest's or a re-post's few calls. The cap only matters once the claim has lapsed.
 */
const POST_HOLD_MARGIN_MS = 20_000;

export interface PostingOptions {
  log?: Pick<Logger, 'warn'> | undefined;
  /** The lease of the claim the post runs under (default CLAIM_LEASE_MS): the lock is held past it. */
  claimMs?: number;
  /** The cap on the hold (default the claim's lease plus POST_HOLD_MARGIN_MS). */
  holdMs?: number;
  /** Called when the lock could not be taken for another reason than a post under way (a store error). */
  notStarted?: () => Promise<unknown>;
}

/**
 * `post` under the lock of `id`; `busy` when another deliverer's post of it stayed under way. A post
 * still under way after the cap (the claim's lease plus a margin) goes on without the lock (which is let go), and its answer is awaited.
 */
export async function whilePosting<T>(
  store: Store,
  id: string,
  post: () => Promise<T>,
  options: PostingOptions = {},
): Promise<T | 'busy'> {
  let posting: Promise<T> | undefined;
  try {
    const held = await store.withLock(
      postLockName(id),
      () => {
        posting = post();
        return heldAtMost(posting, holdOf(options));
      },
      { waitMs: POST_LOCK_WAIT_MS },
    );
    if (held.done) return held.value;
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (!posting && code === StoreErrorCode.LockTimeout) return 'busy';
    if (!posting) await options.notStarted?.().catch(() => undefined);
    throw error;
  }
  options.log?.warn('an alert post outlived its lock hold; the lock is let go, the post still awaited', {
    entryId: id,
  });
  // Set whenever the lock's callback ran, which is the only way here.
  return (posting as Promise<T>).then((value) => value);
}

/**
 * Whether a post of `id` is under way: its lock is held (asked without waiting, and let go at once).
 * Asked by a digest after it claimed the entry: a lone post then either holds the lock already or
 * finds, under it, that the claim is no longer its own (Outbox.stillToPostAlone).
 */
export async function postUnderWay(store: Store, id: string): Promise<boolean> {
  try {
    await store.withLock(postLockName(id), async () => undefined, { waitMs: 0 });
    return false;
  } catch (error) {
    if ((error as { code?: unknown } | undefined)?.code === StoreErrorCode.LockTimeout) return true;
    throw error;
  }
}

const postLockName = (id: string) => `webhooks:outbox:post:${id}`;

/** The cap on the lock's hold: past the claim's lease, so a replica that took the lapsed claim waits. */
function holdOf(options: PostingOptions): number {
  return options.holdMs ?? (options.claimMs ?? CLAIM_LEASE_MS) + POST_HOLD_MARGIN_MS;
}

/** The post's answer, or `done: false` once `ms` pass first (the post goes on). */
async function heldAtMost<T>(
  posting: Promise<T>,
  ms: number,
): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const capped = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
    timer.unref();
  });
  try {
    return await Promise.race([posting.then((value) => ({ done: true as const, value })), capped]);
  } finally {
    clearTimeout(timer);
  }
}
