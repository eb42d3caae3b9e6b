// The balance a review shows for a withdrawal or redemption. The review opens at once with the last
// figure read (store only: Slack's trigger lasts 3 s); when that figure is older than the balance
// cache's life, the balance is read again through the shared cache and the open review updated in
// place, said with its age. An insufficient balance replaces the Approve button with the reason
// (blocks/review.ts); the engine refuses the approval too, whatever the modal showed.
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { ApprovalRequest } from '../../../approvals/index.js';
import { BALANCE_KINDS } from '../../../approvals/index.js';
import { withinDeadline } from '../../../store/index.js';
import type { ApprovalSlackDeps } from '../../types.js';
import type { ReviewBalance } from '../blocks/review.js';

/** A figure at most this old is shown as it is; an older one is read again after the review opens. */
export const REVIEW_BALANCE_FRESH_MS = 15_000;
/** The store read of the last figure, before the review opens. */
const STORED_READ_DEADLINE_MS = 400;

const hasBalance = (request: ApprovalRequest) => BALANCE_KINDS.has(request.kind) && !!request.amount;

/** The last figure read, against this request now (store only, bounded); empty when there is none. */
export async function storedReviewBalance(
  deps: ApprovalSlackDeps,
  request: ApprovalRequest,
): Promise<ReviewBalance> {
  if (!hasBalance(request)) return {};
  try {
    const check = await withinDeadline(
      deps.engine.balanceFor(request, { stored: true }),
      STORED_READ_DEADLINE_MS,
      'store',
    );
    return check ? { check } : {};
  } catch (error) {
    deps.log?.warn('review: the last balance read was not read from the store', { error: String(error) });
    return {};
  }
}

/** Whether the review should read the balance again once it is open. */
export function needsFreshBalance(request: ApprovalRequest, shown: ReviewBalance, now: Date): boolean {
  if (!hasBalance(request)) return false;
  if (!shown.check) return true;
  return now.getTime() - Date.parse(shown.check.asOf) > REVIEW_BALANCE_FRESH_MS;
}

/**
 * Read the balance through the cache and show it in the open review (`hash`: only if the review is
 * still the view that opened, so a refusal or a newer view is never overwritten). Never throws.
 */
export async function refreshReviewBalance(
  client: WebClient,
  deps: ApprovalSlackDeps,
  opened: { id: string; hash?: string },
  request: ApprovalRequest,
  shown: ReviewBalance,
  render: (balance: ReviewBalance) => View,
): Promise<void> {
  let balance: ReviewBalance;
  try {
    const check = await deps.engine.balanceFor(request);
    balance = check ? { check } : { unread: true };
  } catch (error) {
    deps.log?.warn('review: the balance could not be read', { requestId: request.id, error: String(error) });
    // A figure already shown stays, with its age; without one, say it could not be read.
    if (shown.check) return;
    balance = { unread: true };
  }
  await client.views
    .update({ view_id: opened.id, ...(opened.hash ? { hash: opened.hash } : {}), view: render(balance) })
    .catch((error: unknown) => {
      deps.log?.warn('review: the balance read now was not shown (the review moved on)', {
        requestId: request.id,
        error: String(error),
      });
    });
}

/** Review all: the last figure read against each request (store only, bounded), by request id. */
export async function storedReviewBalances(
  deps: ApprovalSlackDeps,
  requests: readonly ApprovalRequest[],
): Promise<Record<string, ReviewBalance>> {
  const read = await Promise.all(requests.map((r) => storedReviewBalance(deps, r)));
  return Object.fromEntries(requests.map((r, i) => [r.id, read[i] ?? {}]));
}

/**
 * Review all, as the single review: once the list is open, each request whose figure is older than
 * the cache's life gets the balance read again through the shared cache (one read serves all), and the
 * list is updated in place with them (`hash`: never over a view that moved on). Never throws.
 */
export async function refreshReviewAllBalances(
  client: WebClient,
  deps: ApprovalSlackDeps,
  opened: { id: string; hash?: string },
  requests: readonly ApprovalRequest[],
  shown: Readonly<Record<string, ReviewBalance>>,
  render: (balances: Record<string, ReviewBalance>) => View,
): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const stale = requests.filter((r) => needsFreshBalance(r, shown[r.id] ?? {}, now));
  if (stale.length === 0) return;
  const balances: Record<string, ReviewBalance> = { ...shown };
  for (const request of stale) {
    try {
      const check = await deps.engine.balanceFor(request);
      balances[request.id] = check ? { check } : { unread: true };
    } catch (error) {
      deps.log?.warn('review all: the balance could not be read', {
        requestId: request.id,
        error: String(error),
      });
      // A figure already shown stays, with its age; without one, say it could not be read.
      if (!shown[request.id]?.check) balances[request.id] = { unread: true };
    }
  }
  await client.views
    .update({ view_id: opened.id, ...(opened.hash ? { hash: opened.hash } : {}), view: render(balances) })
    .catch((error: unknown) => {
      deps.log?.warn('review all: the balance read now was not shown (the list moved on)', {
        error: String(error),
      });
    });
}
