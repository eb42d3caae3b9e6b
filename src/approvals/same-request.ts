// The same payment filed twice by mistake: a withdrawal, redemption or bridge of the same kind, amount
// and destination (its key holder, limits.ts) as another one filed, waiting or sent in the last 24 h.
// The engine finds it when it files, under the limits lock from the requests the limit window lists,
// so two filings moments apart see each other; the form asks "file it again?" first, and the request
// carries the link wherever it is shown. The same pass finds an earlier request to the destination
// not sent yet: a first payment there is that one's. Pure.
import { Money } from '../format/money.js';
import { InvalidDraftError } from './draft.js';
import { ApprovalErrorCode } from './error-codes.js';
import { destinationKey, destinationOf } from './limits.js';
import type {
  ApprovalRequest,
  EarlierRequests,
  RequestChecks,
  RequestDraft,
  SameRequestMark,
} from './types.js';

/** How far back a sent request is still "the same payment" (a waiting one always is). */
export const SAME_REQUEST_MS = 24 * 3_600_000;

const NOT_SENT: ReadonlySet<ApprovalRequest['state']> = new Set(['pending', 'approved', 'executing']);
const SENT: ReadonlySet<ApprovalRequest['state']> = new Set(['sent', 'completed']);

/** When its call began: the outcome's time, else the step that sent it, else when it was filed. */
function sentAt(request: ApprovalRequest): string {
  const step = request.history.find((h) => h.state === 'sent' || h.state === 'outcome-unknown');
  return request.outcome?.sentAt ?? step?.at ?? request.createdAt;
}

/** The request as a match: where it is and since when; undefined when it ended with nothing sent. */
function markOf(request: ApprovalRequest, now: Date): SameRequestMark | undefined {
  if (NOT_SENT.has(request.state)) return { id: request.id, state: 'pending', at: request.createdAt };
  const state = SENT.has(request.state)
    ? 'sent'
    : request.state === 'outcome-unknown'
      ? request.state
      : undefined;
  if (!state) return undefined;
  const at = sentAt(request);
  return now.getTime() - Date.parse(at) < SAME_REQUEST_MS ? { id: request.id, state, at } : undefined;
}

const sameAmount = (a: string | undefined, b: string | undefined) =>
  !!a && !!b && Money.parseDecimal(a).equals(Money.parseDecimal(b));

/**
 * Of `requests` (any order), the latest filed of the draft's kind, amount and destination, and the
 * first filed to its destination that is not sent yet. Nothing for a kind that pays nobody.
 */
export function earlierRequests(
  draft: RequestDraft,
  requests: ReadonlyArray<ApprovalRequest | undefined>,
  now: Date,
): EarlierRequests {
  const destination = destinationKey(destinationOf(draft));
  if (!destination || !draft.amount) return {};
  const found: EarlierRequests = {};
  let sameFiled = '';
  for (const request of requests) {
    if (!request || destinationKey(destinationOf(request)) !== destination) continue;
    if (NOT_SENT.has(request.state) && (!found.unsent || request.createdAt < found.unsent.at)) {
      found.unsent = { id: request.id, at: request.createdAt };
    }
    const mark = isSamePayment(request, draft) ? markOf(request, now) : undefined;
    if (mark && request.createdAt > sameFiled) {
      sameFiled = request.createdAt;
      found.same = mark;
    }
  }
  return found;
}

const isSamePayment = (request: ApprovalRequest, draft: RequestDraft) =>
  request.kind === draft.kind && sameAmount(request.amount, draft.amount);

/** A filing refused because it is the same payment as `mark`, and the requester did not say to file it again. */
export class SameRequestError extends InvalidDraftError {
  override name = 'SameRequestError';
  override readonly code = ApprovalErrorCode.SameRequest;

  constructor(readonly mark: SameRequestMark) {
    super(
      `amount: the same amount and destination as ${mark.id} (${mark.state === 'pending' ? 'not sent yet' : 'sent'}); say whether to file it again`,
    );
  }
}

/** The filing found the same payment the requester was not shown, or did not say to file again. */
export function unconfirmedSame(found: EarlierRequests, checks: RequestChecks | undefined): boolean {
  if (!found.same || !checks) return false;
  return !(checks.sameAs?.confirmed && checks.sameAs.id === found.same.id);
}

/** The filing step's note for the same payment filed again (kept in the audit log). */
export function sameRequestNote(mark: SameRequestMark): string {
  return `same amount and destination as ${mark.id} (${mark.state} at filing); the requester confirmed filing it again`;
}
