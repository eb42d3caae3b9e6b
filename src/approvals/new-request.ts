// A new request as the engine files it: id, environment and key, the approvals its tier needs, expiry,
// and a bridge's callback URL. Pure but for the random id and token; the engine saves it.
import { randomBytes } from 'node:crypto';
import type { Money } from '../format/money.js';
import { requestExpiry } from './delegation-requests.js';
import type { ServiceEnvironment } from './ports.js';
import { lookAlikeNote } from './preflight.js';
import { sameRequestNote } from './same-request.js';
import type {
  ApprovalRequest,
  EarlierRequests,
  RequestChecks,
  RequestDraft,
  RequestKind,
  TierBasis,
} from './types.js';

/** What a new request takes from the engine. */
export interface FilingContext {
  environment: ServiceEnvironment;
  keyId: string | undefined;
  /** CNGN_APPROVAL_TTL */
  ttlMs: number;
  /** Public HTTPS origin: a bridge then carries a per-request callback URL under it. */
  publicUrl: string | undefined;
  /** The policy's tiers. */
  approvalsFor: (amount: Money | undefined, kind: RequestKind) => number;
  /** How many people other than the requester may approve this kind (unknown: not capped). */
  approversAvailable?: number | undefined;
}

/**
 * The checks as the request keeps them: a look-alike needs one more distinct approver than its tier,
 * unless the tier already needs everyone who may approve (then it would never be approved).
 */
function withLookAlikeExtra(
  checks: RequestChecks | undefined,
  tier: number,
  available: number | undefined,
): { checks: RequestChecks | undefined; extra: number } {
  if (!checks?.lookAlike) return { checks, extra: 0 };
  if (available === undefined || available > tier) return { checks, extra: 1 };
  return { checks: { ...checks, lookAlike: { ...checks.lookAlike, extra: false } }, extra: 0 };
}

/** The found requests without keys left undefined (a stored request holds no undefined). */
const withoutEmpty = ({ same, unsent }: EarlierRequests): EarlierRequests => ({
  ...(same ? { same } : {}),
  ...(unsent ? { unsent } : {}),
});

/**
 * A new pending request. Its tier is read from `tier.amount` when a total in the limit window chose it
 * (`tier.basis` says which), else from its own amount. The checks made before filing travel with it; a
 * look-alike destination needs one more distinct approver than its tier, and its filing step says why.
 */
export function newRequest(
  draft: RequestDraft,
  amount: Money | undefined,
  now: Date,
  context: FilingContext,
  tier?: { amount: Money; basis?: TierBasis },
  filing: { preflight?: RequestChecks; earlier?: EarlierRequests } = {},
): ApprovalRequest {
  const tierCount = context.approvalsFor(tier?.amount ?? amount, draft.kind);
  const { checks, extra } = withLookAlikeExtra(filing.preflight, tierCount, context.approversAvailable);
  const earlier =
    filing.earlier && (filing.earlier.same || filing.earlier.unsent) ? filing.earlier : undefined;
  const notes = [
    ...(checks?.lookAlike ? [lookAlikeNote(checks.lookAlike)] : []),
    ...(earlier?.same?.confirmed ? [sameRequestNote(earlier.same)] : []),
  ];
  const request = {
    ...draft,
    id: `AR-${randomBytes(5).toString('hex').toUpperCase()}`,
    environment: context.environment,
    ...(context.keyId ? { keyId: context.keyId } : {}),
    ...(amount ? { amount: amount.toString() } : {}),
    approvals: [],
    requiredApprovals: tierCount + extra,
    ...(tier?.basis ? { tierBasis: tier.basis } : {}),
    state: 'pending',
    createdAt: now.toISOString(),
    expiresAt: new Date(requestExpiry(draft, now, context.ttlMs)).toISOString(),
    round: 0,
    ...(checks ? { preflight: checks } : {}),
    ...(earlier ? { earlier: withoutEmpty(earlier) } : {}),
    history: [
      {
        at: now.toISOString(),
        state: 'pending',
        action: 'filed',
        actor: draft.requester,
        ...(notes.length > 0 ? { note: notes.join('; ') } : {}),
      },
    ],
  } as ApprovalRequest;
  if (request.kind !== 'bridge' || !context.publicUrl) return request;
  const token = randomBytes(24).toString('base64url');
  const callbackUrl = `${context.publicUrl.replace(/\/+$/, '')}/callbacks/bridge/${token}`;
  return { ...request, callbackToken: token, payload: { ...request.payload, callbackUrl } };
}
