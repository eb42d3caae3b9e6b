// An alert's post (or a digest's) runs under a store lock named for it, which the store keeps renewed
// for as long as its holder is alive and the post under way. The outbox's claim has a fixed lease; a
// post Slack kept open past it let another replica take the claim and post the alert again. The lock
// outlives any post, so that replica waits for it and then finds the alert delivered
// (docs/decisions/outbox-owns-slack-retries.md).
import { type Store, StoreErrorCode } from '../store/index.js';

/** How long a deliverer waits for another's post of the same alert before leaving it to a later scan. */
const POST_LOCK_WAIT_MS = 2_000;

/** `post` under the lock of `id`; `busy` when another deliverer's post of it stayed under way. */
export async function whilePosting<T>(store: Store, id: string, post: () => Promise<T>): Promise<T | 'busy'> {
  let started = false;
  try {
    return await store.withLock(
      `webhooks:outbox:post:${id}`,
      () => {
        started = true;
        return post();
      },
      { waitMs: POST_LOCK_WAIT_MS },
    );
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (!started && code === StoreErrorCode.LockTimeout) return 'busy';
    throw error;
  }
}
