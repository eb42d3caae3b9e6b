// The bot's seal on each request it files: an Ed25519 signature by the audit signing key (kept outside
// the store; the one that seals the passkey book, passkey-seal.ts) over what an approver's signature
// does not cover but the send relies on: who asked, how many approvals it needs (a limit-window total
// or a look-alike may have raised it above the tier), when it was filed; with its id, kind, amount,
// whole payload and key. Where the bot holds the audit signing key (else where approvals must be
// signed), the seal must hold over the request as it stands just before the call, else nothing is sent:
// someone who can write to the store but does not hold the key cannot change what is sent or to whom,
// make the requester an approver of their own request, or lower the count; nor write or widen a
// delegation, whose request's seal must hold where it is used (delegation-requests.ts). The
// engine seals again only where it changes a sealed field itself, and only over a seal that held;
// what stands unsealed it seals once per environment, at its first start (sealing-once.ts).
// docs/decisions/passkey-signed-approvals.md.
import { canonicalJson } from '../audit/index.js';
import type { CoreSections } from './core-sections.js';
import { holds, type PasskeySealer } from './passkey-seal.js';
import type { ApprovalRequest } from './types.js';

/** The note a request fails with when its filing seal does not hold just before the call. */
export const FILING_SEAL_BROKEN = 'its filing seal does not hold: the request was changed outside the bot';

/**
 * The note a request fails with when it carries no filing seal just before the call: the bot sealed
 * what stood unsealed once, at the environment's first start (sealing-once.ts), never since.
 */
export const FILING_SEAL_MISSING =
  'it carries no filing seal: the request was written, or its seal taken off, outside the bot';

/** What the seal covers (never its approvals, state, round, display or history). */
function sealText(environment: string, r: ApprovalRequest): string {
  return canonicalJson({
    signs: 'cngn-desk request',
    environment,
    id: r.id,
    kind: r.kind,
    requester: r.requester,
    amount: r.amount ?? null,
    payload: r.payload,
    requiredApprovals: r.requiredApprovals,
    createdAt: r.createdAt,
    keyId: r.keyId ?? null,
  });
}

export class FilingSeal {
  /** With the sealer of the passkey book, for the engine's environment. */
  constructor(
    private readonly sealer: PasskeySealer,
    private readonly environment: string,
  ) {}

  /** The request with the sealer's seal over it as it stands. */
  seal<R extends ApprovalRequest>(request: R): R {
    const { sealed: _old, ...rest } = request;
    const value = this.sealer.sign(sealText(this.environment, rest as ApprovalRequest));
    return { ...rest, sealed: { key: this.sealer.publicKey, value } } as R;
  }

  /** Does the request carry this sealer's seal over it as it stands now? */
  holds(request: ApprovalRequest): boolean {
    const { sealed } = request;
    if (sealed?.key !== this.sealer.publicKey) return false;
    return holds(this.sealer.publicKey, sealText(this.environment, request), sealed.value);
  }

  /**
   * `after`, fresh figures the engine puts on `before`, sealed again when `before`'s seal held over
   * `before` and over `after` but for its payload; else `after` keeps `before`'s seal (not holding).
   */
  resealed<R extends ApprovalRequest>(before: ApprovalRequest, after: R): R {
    const samePayload = { ...after, payload: before.payload, sealed: before.sealed } as ApprovalRequest;
    if (this.holds(before) && this.holds(samePayload)) return this.seal(after);
    const { sealed: _new, ...rest } = after;
    return (before.sealed ? { ...rest, sealed: before.sealed } : rest) as R;
  }
}

/**
 * The open requests of this environment without a seal, and the `granting` ones (the delegation requests
 * behind delegations) without one: what the first start of an environment seals (sealing-once.ts).
 */
export async function unsealedRequests(
  core: Pick<CoreSections, 'openRequests'>,
  environment: string,
  granting: readonly ApprovalRequest[] = [],
): Promise<string[]> {
  const found = [...(await core.openRequests()), ...granting].filter(
    (request) => !request.sealed && request.environment === environment,
  );
  return [...new Set(found.map((request) => request.id))];
}

/**
 * Each of `ids` still without a seal sealed as it stands, under its lock; a seal, holding or not, is
 * never replaced. Returns the ids sealed.
 */
export async function sealAsTheyStand(
  core: Pick<CoreSections, 'locked' | 'write'>,
  seal: FilingSeal,
  environment: string,
  ids: readonly string[],
): Promise<string[]> {
  const sealed: string[] = [];
  for (const id of ids) {
    await core.locked(id, async (request) => {
      if (!request || request.sealed || request.environment !== environment) return;
      await core.write(request, seal.seal(request), { audit: false });
      sealed.push(request.id);
    });
  }
  return sealed;
}
