// Filing a request: the draft checked again (zod), refused on what the checks made before filing say,
// its tier chosen (within the limit window when it moves an amount), then saved, and only then the
// listeners told. A delegation is refused while an identical one waits; an unfreeze once its freeze is
// gone or while another waits (see FreezeSwitch.saveUnfreezeRequest).

import type { ApprovalPolicy } from '../access/index.js';
import { Money } from '../format/money.js';
import type { Store } from '../store/index.js';
import type { ServiceBinding } from './binding.js';
import { delegationFilingLockName, delegationProblem, pendingTwin } from './delegation-requests.js';
import { checkDraft, InvalidDraftError } from './draft.js';
import type { FreezeSwitch } from './freeze.js';
import type { LimitIndex } from './limit-index.js';
import { movesAmount } from './limits.js';
import { type FilingContext, newRequest } from './new-request.js';
import { type FileOptions, preflightProblem } from './preflight.js';
import type { ApprovalRepository } from './repository.js';
import type { FilingSeal } from './request-seal.js';
import { SameRequestError, unconfirmedSame } from './same-request.js';
import type { ApprovalRequest, RequestChecks, RequestDraft, RequestOf } from './types.js';

/** What filing takes from the engine (see ApprovalCore). */
export interface FilingDeps {
  store: Store;
  repo: ApprovalRepository;
  policy: ApprovalPolicy;
  limits: LimitIndex;
  freeze: Pick<FreezeSwitch, 'saveUnfreezeRequest'>;
  /** The environment and key new requests are bound to (the key is set at start-up). */
  binding: () => ServiceBinding;
  /** Request lifetime (CNGN_APPROVAL_TTL). */
  ttlMs: number;
  publicUrl: string | undefined;
  now: () => Date;
  /** Each request is sealed as filed, before it is saved (request-seal.ts). */
  seal: Pick<FilingSeal, 'seal'>;
  notify: (request: ApprovalRequest) => Promise<void>;
}

/**
 * File a draft. With `preflight` (the checks made just before, see preflight.ts) they are stored on
 * the request; a balance that does not cover it, or a look-alike destination the requester did not
 * say they compared, is refused (nothing filed), and a look-alike needs one more approver. A payment
 * that moves an amount carries the requests to its destination found under the limits lock (the same
 * payment filed before, one not sent yet); with `preflight`, the same payment found is refused
 * (SameRequestError, nothing filed) unless the requester was shown that one and said to file again.
 */
export async function fileRequest(
  deps: FilingDeps,
  unchecked: RequestDraft,
  options: FileOptions = {},
): Promise<ApprovalRequest> {
  let draft = checkDraft(unchecked);
  const checks = options.preflight;
  const problem = checks ? preflightProblem(checks) : undefined;
  if (problem) throw new InvalidDraftError(problem);
  const now = deps.now();
  if (draft.kind === 'delegation') {
    const approver = await deps.policy.isApprover(draft.requester);
    const problem = delegationProblem(draft.payload, draft.requester, approver, now);
    if (problem) throw new InvalidDraftError(problem);
    const max = draft.payload.max;
    if (max) draft = { ...draft, payload: { ...draft.payload, max: Money.parseDecimal(max).toString() } };
  }
  if (draft.kind === 'unfreeze' && !(await deps.policy.isApprover(draft.requester))) {
    throw new InvalidDraftError('only an approver can ask to lift the freeze of sends');
  }
  const amount = draft.amount ? Money.parseDecimal(draft.amount) : undefined;
  const { sameAs, ...stored } = checks ?? { at: '' };
  const filing = checks ? { preflight: stored } : {};
  const context = { ...filingContext(deps), approversAvailable: await approversBesides(deps, draft, checks) };
  const request =
    amount && movesAmount(draft.kind)
      ? await deps.limits.file(draft, amount, {
          approvalsFor: (total) => deps.policy.requiredFor(total, draft.kind),
          build: (now, tier, earlier) => {
            if (earlier.same && unconfirmedSame(earlier, checks)) throw new SameRequestError(earlier.same);
            const same =
              earlier.same && sameAs?.confirmed ? { ...earlier.same, confirmed: true } : earlier.same;
            return newRequest(draft, amount, now, context, tier, {
              ...filing,
              earlier: { ...earlier, same },
            });
          },
          save: (request) => saveNew(deps, request),
        })
      : await saveNew(deps, newRequest(draft, amount, now, context, undefined, filing));
  await deps.notify(request);
  return request;
}

/** What a new request takes from the engine: environment, key, lifetime, callback origin, tiers. */
function filingContext({ binding, ttlMs, publicUrl, policy }: FilingDeps): FilingContext {
  const { environment, keyId } = binding();
  return {
    environment,
    keyId,
    ttlMs,
    publicUrl,
    approvalsFor: (amount, kind) => policy.requiredFor(amount, kind),
  };
}

/**
 * How many people besides the requester may approve the draft's kind, for capping a look-alike's extra
 * approver; undefined when it does not matter (no look-alike) or the pool cannot be read (a group).
 */
async function approversBesides(
  deps: FilingDeps,
  draft: RequestDraft,
  checks: RequestChecks | undefined,
): Promise<number | undefined> {
  if (!checks?.lookAlike) return undefined;
  try {
    return (await deps.policy.approverIds(draft.kind)).filter((id) => id !== draft.requester).length;
  } catch {
    return undefined;
  }
}

/** Seal and persist a new request (with its bridge callback token's index first). */
async function saveNew(deps: FilingDeps, filed: ApprovalRequest): Promise<ApprovalRequest> {
  const request = deps.seal.seal(filed);
  if (request.callbackToken) await deps.repo.indexCallbackToken(request.callbackToken, request.id);
  if (request.kind === 'delegation') await saveUnlessTwin(deps, request, new Date(request.createdAt));
  else if (request.kind === 'unfreeze') await deps.freeze.saveUnfreezeRequest(request);
  else await deps.repo.save(request);
  return request;
}

/** Save a delegation request, refused (nothing saved) while an identical one waits for approval. */
async function saveUnlessTwin(deps: FilingDeps, request: RequestOf<'delegation'>, now: Date): Promise<void> {
  const lock = delegationFilingLockName(deps.binding().environment);
  await deps.store.withLock(lock, async () => {
    const twin = pendingTwin(await deps.repo.openRequests(), request.payload, now);
    if (twin) {
      throw new InvalidDraftError(
        `the same delegation (same person, end and cap) is already waiting for approval as ${twin.id}`,
      );
    }
    await deps.repo.save(request);
  });
}
