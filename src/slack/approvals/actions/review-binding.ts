// A modal that decides on requests (the Approve review, Review all, Reject) counts only for what it
// showed. When it opens, its Slack view id is stored with each request it showed, that request's round
// and the digest of its figures; the submission is read against that record, never against the ids
// the view carries back in private_metadata (only Slack's signature vouches for those). The record is
// in the store, so a submission reaching another replica finds it.
//
// The view id is known only once views.open has answered, so a submission can arrive before its
// record is written: the reader waits for it a little, then refuses and asks to open the modal again.
import { setTimeout as sleep } from 'node:timers/promises';
import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { ApprovalRequest } from '../../../approvals/index.js';
import { figuresDigest, originalLifetimeMs } from '../../../approvals/index.js';
import type { Logger } from '../../../log.js';
import { type Store, StoreErrorCode, withinDeadline } from '../../../store/index.js';
import { noticeView } from '../../ui/modal.js';

export type BoundModal = 'review' | 'review-all' | 'reject';

/** One request as the modal showed it. */
export interface ShownRequest {
  id: string;
  round: number;
  /** figuresDigest of the request as shown. */
  figures: string;
}

interface ViewBinding {
  modal: BoundModal;
  shown: ShownRequest[];
}

/**
 * How long a submission waits for its view's record not written yet (a submission faster than the
 * write after views.open).
 */
const BINDING_WAIT_MS = 500;
/**
 * The bound on reading the record, counted from the submission's start: a read under way may finish
 * past BINDING_WAIT_MS, as a busy store (SQLite behind its group commit) answers late, not never. It
 * fits Slack's 3 s: a review or a rejection writes with what the read left of its 2.5 s
 * (submissionDeadlines, click.ts), at least 0.5 s to start its write and 1 s to have it recorded, and
 * Review all reads its channel for 1 s at most after it.
 */
const BINDING_READ_MS = 1_500;
const BINDING_POLL_MS = 25;
/** Past its requests' latest possible expiry, a record has nothing left to approve. */
const BINDING_MARGIN_MS = 3_600_000;
const BINDING_MAX_MS = 31 * 86_400_000;

/** A Slack view id as a key: anything else is never looked up. */
const VIEW_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Where what a modal showed is kept, under its Slack view id. */
export const bindingKey = (viewId: string) => `slack-view:${viewId}`;

const bindingSchema = z.object({
  modal: z.enum(['review', 'review-all', 'reject']),
  shown: z
    .array(
      z.object({
        id: z.string().min(1).max(60),
        round: z.number().int().min(0),
        figures: z.string().regex(/^[0-9a-f]{64}$/),
      }),
    )
    .max(50),
});

function shownRequest(request: ApprovalRequest): ShownRequest {
  return { id: request.id, round: request.round, figures: figuresDigest(request) };
}

/** Until the latest a shown request could still be approved (expiry, and its one Extend), plus a margin. */
function keepFor(requests: readonly ApprovalRequest[], now: Date): number {
  const until = Math.max(
    ...requests.map((r) => Date.parse(r.expiresAt) + (r.extended ? 0 : Math.max(0, originalLifetimeMs(r)))),
  );
  const ms = until - now.getTime() + BINDING_MARGIN_MS;
  return Math.min(BINDING_MAX_MS, Math.max(BINDING_MARGIN_MS, Number.isFinite(ms) ? ms : 0));
}

export interface BindDeps {
  store: Store;
  now: Date;
  log?: Pick<Logger, 'warn'> | undefined;
}

/** Why a modal that opened cannot be used, shown in it in place of its form. */
const NOT_BOUND =
  'This window could not be prepared (the bot could not reach its store), so it cannot approve or reject anything. Close it and click the button on the request message again.';

/**
 * Open `view` with the trigger and record what it shows under the id Slack gave it. Throws when
 * views.open fails (nothing opened, nothing recorded). When the record cannot be written, the modal
 * is replaced by a notice saying so: its submission would be refused anyway. Returns the opened view's
 * id and hash when it is usable (for a later views.update that must not overwrite a newer view).
 */
export async function openBound(
  client: WebClient,
  deps: BindDeps,
  open: { triggerId: string; view: View; modal: BoundModal; requests: readonly ApprovalRequest[] },
): Promise<{ id: string; hash?: string } | undefined> {
  const opened = await client.views.open({ trigger_id: open.triggerId, view: open.view });
  const viewId = opened.view?.id;
  const binding: ViewBinding = { modal: open.modal, shown: open.requests.map(shownRequest) };
  try {
    if (!viewId || !VIEW_ID.test(viewId)) throw new Error('views.open named no usable view id');
    await deps.store.set(bindingKey(viewId), binding, keepFor(open.requests, deps.now));
    return { id: viewId, ...(opened.view?.hash ? { hash: opened.view.hash } : {}) };
  } catch (error) {
    deps.log?.warn('modal opened but what it shows was not recorded', {
      modal: open.modal,
      error: String(error),
    });
    if (viewId) {
      await client.views
        .update({ view_id: viewId, view: noticeView('Not ready', NOT_BOUND) })
        .catch((failure: unknown) =>
          deps.log?.warn('unusable modal not replaced', { modal: open.modal, error: String(failure) }),
        );
    }
    return undefined;
  }
}

export type BindingRead =
  | { ok: true; binding: ViewBinding }
  /** No record for this view (not written yet, expired, or a view id the bot never opened). */
  | { ok: false; missing: true }
  /**
   * Nothing can be said about the view: the store did not answer within BINDING_READ_MS (`late`), or
   * its read failed.
   */
  | { ok: false; error: unknown; late: boolean };

/**
 * The record of what this view showed, as `modal`. Waits up to BINDING_WAIT_MS for one not written
 * yet, and up to BINDING_READ_MS for a read under way; a record of another kind of modal counts as none.
 */
export async function readBinding(store: Store, viewId: unknown, modal: BoundModal): Promise<BindingRead> {
  if (typeof viewId !== 'string' || !VIEW_ID.test(viewId)) return { ok: false, missing: true };
  const started = Date.now();
  const [waitUntil, readUntil] = [started + BINDING_WAIT_MS, started + BINDING_READ_MS];
  try {
    for (;;) {
      const left = Math.max(1, readUntil - Date.now());
      const found = bindingSchema.safeParse(
        await withinDeadline(store.get(bindingKey(viewId)), left, 'store'),
      );
      if (found.success) {
        return found.data.modal === modal ? { ok: true, binding: found.data } : { ok: false, missing: true };
      }
      if (Date.now() + BINDING_POLL_MS >= waitUntil) return { ok: false, missing: true };
      await sleep(BINDING_POLL_MS);
    }
  } catch (error) {
    const late = (error as { code?: unknown } | null)?.code === StoreErrorCode.Timeout;
    return { ok: false, error, late };
  }
}
