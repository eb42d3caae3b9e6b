// A call's answer naming a reference the index already gives another request (the holder). Neither
// record can be trusted alone, so both are marked for a person (`/cngn resolve`). The answered
// request's conflict is recorded with its answer, in one write, before anyone is told (it settles on
// nothing from then on); its notice, and the holder's mark, are writes of their own (each audited as
// its newest step), and the sweep writes either again while it is missing.
import { CONFLICT_ACTION } from './conflicts.js';
import type { CoreSections } from './core-sections.js';
import { withNotice } from './state-machine.js';
import type { ApprovalRequest } from './types.js';

const KEY_PREFIX = 'reference:';

/** The marks' key (the same on both requests) and each one's sentence. */
export interface ReferenceConflict {
  key: string;
  own: string;
  holder: string;
}

export function referenceConflict(answered: ApprovalRequest, holderId: string): ReferenceConflict {
  return conflictWords(
    answered.outcome?.reference ?? answered.outcome?.transactionId ?? '',
    answered.id,
    holderId,
  );
}

function conflictWords(reference: string, answeredId: string, holderId: string): ReferenceConflict {
  return {
    key: `${KEY_PREFIX}${reference}:${answeredId}:${holderId}`,
    own: `Conflicting reports from the service: its answer to this request's call names ${reference}, which was already recorded as ${holderId}'s — check with the service which request it is`,
    holder: `Conflicting reports from the service: ${reference}, recorded as this request's, is named in the service's answer to ${answeredId}'s call — check with the service whether this request went out at all`,
  };
}

/**
 * The request with the conflict recorded and no step of its own: written with the answer, whose step
 * stays the newest (the one that write audits). The notice follows (withConflict).
 */
export function withConflictRecorded(
  request: ApprovalRequest,
  key: string,
  note: string,
  now: Date,
): ApprovalRequest {
  if (request.conflicts?.some((c) => c.key === key)) return request;
  return { ...request, conflicts: [...(request.conflicts ?? []), { at: now.toISOString(), key, note }] };
}

/**
 * The request with the conflict mark and its notice (audited with the write), or undefined when it has
 * both. A conflict recorded with an answer gets its notice here.
 */
function withConflict(
  request: ApprovalRequest,
  key: string,
  note: string,
  now: Date,
): ApprovalRequest | undefined {
  const recorded = request.conflicts?.some((c) => c.key === key) ?? false;
  const told = request.history.some((step) => step.action === CONFLICT_ACTION && step.note === note);
  if (recorded && told) return undefined;
  return withNotice(withConflictRecorded(request, key, note, now), CONFLICT_ACTION, note, now);
}

/** Add a conflict mark to a request under its lock, once; persisted before anyone is told. */
export async function markConflict(
  core: CoreSections,
  id: string,
  key: string,
  note: string,
  now: () => Date,
): Promise<ApprovalRequest | undefined> {
  const marked = await core.locked(id, async (request) => {
    const next = request && withConflict(request, key, note, now());
    if (next) await core.write(request, next);
    return next;
  });
  if (marked) await core.notify(marked);
  return marked;
}

/**
 * The holders named by the reference-conflict marks of the request whose answer named the reference:
 * `reference:<reference>:<answered>:<holder>` (ids hold no colon; a reference may). The holder's own
 * mark has the same key, and is not its.
 */
function holdersNamedBy(request: ApprovalRequest): Array<{ holder: string; words: ReferenceConflict }> {
  const named: Array<{ holder: string; words: ReferenceConflict }> = [];
  for (const { key } of request.conflicts ?? []) {
    if (!key.startsWith(KEY_PREFIX)) continue;
    const parts = key.slice(KEY_PREFIX.length).split(':');
    const [answered, holder] = parts.slice(-2);
    if (parts.length < 3 || answered !== request.id || !holder || holder === request.id) continue;
    named.push({ holder, words: conflictWords(parts.slice(0, -2).join(':'), answered, holder) });
  }
  return named;
}

/**
 * The sweep's part: every open request marked as having been answered with another request's
 * reference gets its own notice and that holder's mark written, if the writes after its answer did not
 * make them (a store failure, a stop). The marked request cannot settle until a person resolves it, so it stays open
 * and is looked at on each pass until then.
 */
export async function markMissingHolders(
  core: CoreSections,
  open: readonly ApprovalRequest[],
  now: () => Date,
): Promise<void> {
  for (const request of open) {
    for (const { holder, words } of holdersNamedBy(request)) {
      await markConflict(core, request.id, words.key, words.own, now);
      await markConflict(core, holder, words.key, words.holder, now);
    }
  }
}
