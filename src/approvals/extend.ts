// The requester's one Extend of a pending request: at most by its original lifetime, under the
// request's lock, persisted and audited before anyone is told. It changes the expiry only; approvals
// given so far stand, and nothing is approved or sent by it.

import type { ApprovalCore } from './approval-core.js';
import { latestExpiry } from './delegation-requests.js';
import { transition } from './state-machine.js';
import type { ApprovalRequest, ClickOptions } from './types.js';

type ExtendRefusal =
  | 'not-found'
  | 'not-pending'
  | 'expired'
  | 'not-requester'
  | 'already-extended'
  | 'too-long'
  /** A delegation already expires when its window ends. */
  | 'window-end';

export type ExtendResult =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; reason: ExtendRefusal; request?: ApprovalRequest; maxMs?: number };

/** The lifetime the request was filed with (an Extend never counts towards it). */
export function originalLifetimeMs(request: ApprovalRequest): number {
  const expiry = request.extended?.previousExpiresAt ?? request.expiresAt;
  return Date.parse(expiry) - Date.parse(request.createdAt);
}

/**
 * `1d 2h`, `24h`, `30m`, `45s`: a duration in the words people type, its `units` largest units (to the
 * second).
 */
export function shortDuration(ms: number, units = 2): string {
  const sizes: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ];
  const parts: string[] = [];
  let left = Math.max(0, Math.round(ms / 1000) * 1000);
  for (const [unit, size] of sizes) {
    const count = Math.floor(left / size);
    if (count > 0) parts.push(`${count}${unit}`);
    left -= count * size;
  }
  return parts.slice(0, units).join(' ') || '0s';
}

/** Every unit to the second (`1d 2h 30m`): where the exact figure is the point (the policy, a cap). */
export function fullDuration(ms: number): string {
  return shortDuration(ms, 4);
}

/** Why the requester may not extend this request by `byMs` now, if they may not. */
function extendRefusal(
  request: ApprovalRequest,
  user: string,
  byMs: number | undefined,
): ExtendResult | undefined {
  if (request.state !== 'pending') return { ok: false, reason: 'not-pending', request };
  if (user !== request.requester) return { ok: false, reason: 'not-requester', request };
  if (request.extended) return { ok: false, reason: 'already-extended', request };
  const maxMs = originalLifetimeMs(request);
  const asked = byMs ?? maxMs;
  if (asked > maxMs || asked <= 0) return { ok: false, reason: 'too-long', request, maxMs };
  if (extensionMs(request, byMs) <= 0) return { ok: false, reason: 'window-end', request };
  return undefined;
}

/** How far the request is extended: what was asked (its first lifetime unless said), never past a delegation's window. */
function extensionMs(request: ApprovalRequest, byMs: number | undefined): number {
  const asked = byMs ?? originalLifetimeMs(request);
  // Never past a delegation's window: approved after it, it would never be in effect.
  return Math.min(asked, latestExpiry(request) - Date.parse(request.expiresAt));
}

/**
 * Extend by `byMs` (default: the original lifetime). Only the requester, only while pending and not
 * yet due, only once, never by more than the original lifetime, and a delegation never past the end
 * of its window (shortened to it).
 */
export async function extendRequest(
  core: ApprovalCore,
  id: string,
  user: string,
  byMs?: number,
  click: ClickOptions = {},
): Promise<ExtendResult> {
  const result = await core.locked(id, async (request): Promise<ExtendResult & { changed?: boolean }> => {
    if (!request) return { ok: false, reason: 'not-found' };
    const now = core.now();
    click.signal?.throwIfAborted();
    const expired = await core.expireIfDue(request, now, click);
    if (expired) return { ok: false, reason: 'expired', request: expired, changed: true };
    const refusal = extendRefusal(request, user, byMs);
    if (refusal) return refusal;
    const by = extensionMs(request, byMs);
    const expiresAt = new Date(Date.parse(request.expiresAt) + by).toISOString();
    const extended = {
      ...request,
      expiresAt,
      extended: { at: now.toISOString(), actor: user, byMs: by, previousExpiresAt: request.expiresAt },
    } as ApprovalRequest;
    const next = transition(extended, 'pending', {
      action: 'extended',
      actor: user,
      note: `by ${shortDuration(by)}, to ${expiresAt} (was ${request.expiresAt})`,
      at: now,
    });
    await core.write(request, next, { click });
    return { ok: true, request: next, changed: true };
  });
  click.onRecorded?.();
  const { changed, ...answer } = result;
  if (changed && answer.request) await core.notify(answer.request);
  return answer as ExtendResult;
}
