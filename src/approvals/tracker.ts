// After the call: follow each sent request to its final status (webhooks first, slow polls as the
// fallback), and hand outcome-unknown requests to the reconciler. Reads only, at background priority;
// nothing here ever sends a money-moving request. Also the periodic sweep and the start-up resume.

import type { WebhookEvent } from '../cngn/schemas.js';
import { classifyStatus } from '../cngn/schemas.js';
import { checkedExplorerUrl } from '../format/explorer.js';
import { type ApprovalCore, CHECK_HOLD_MS } from './engine.js';
import { AnswerNotRecordedError, certainlyUnsent, type Executor, leaseExpired } from './executor.js';
import { outcomeFromTransaction, Reconciler, type ReconcilerOptions } from './reconciler.js';
import { hasNotice, transition, withNotice } from './state-machine.js';
import type { ApprovalRequest, ExecutionOutcome } from './types.js';

export interface TrackerOptions extends ReconcilerOptions {
  /** First poll of a sent request after this long, then doubling (default 60 s). */
  pollBaseMs?: number;
  /** Longest wait between two polls (default 15 min). */
  pollMaxMs?: number;
}

// A Map: the event name is the service's text, and `constructor` must not find Object's own member.
const FINAL_EVENT = new Map<string, 'completed' | 'failed'>([
  ['withdrawal.completed', 'completed'],
  ['redemption.completed', 'completed'],
  ['bridge.completed', 'completed'],
  ['transaction.failed', 'failed'],
]);

/** What an unsigned bridge callback claims; shown as a hint until the service confirms it. */
export interface BridgeCallbackHint {
  explorerLink?: string;
  hash?: string;
  status?: string;
}

export class Tracker {
  private readonly pollBaseMs: number;
  private readonly pollMaxMs: number;
  private readonly reconciler: Reconciler;

  constructor(
    private readonly core: ApprovalCore,
    private readonly executor: Executor,
    options: TrackerOptions = {},
  ) {
    this.pollBaseMs = options.pollBaseMs ?? 60_000;
    this.pollMaxMs = options.pollMaxMs ?? 15 * 60_000;
    this.reconciler = new Reconciler(core, executor, this, options);
  }

  /** Webhook subscriber: an event about one of our requests moves it to its final state. */
  async onWebhookEvent(event: WebhookEvent): Promise<ApprovalRequest | undefined> {
    const keys = [event.data.trx_ref, event.data.transactionId].filter((k): k is string => !!k);
    let id: string | undefined;
    for (const key of keys) id ??= await this.core.repo.findIdByReference(key);
    if (!id) return undefined;
    // Our own environment's service only speaks for our own environment's requests.
    if ((await this.core.get(id))?.environment !== this.core.binding.environment) return undefined;
    const byEvent = FINAL_EVENT.get(event.event);
    const byStatus = classifyStatus(event.data.status);
    const to =
      byEvent ?? (byStatus === 'succeeded' ? 'completed' : byStatus === 'failed' ? 'failed' : undefined);
    if (!to) return undefined;
    return this.finish(id, to, `webhook ${event.event}`, {
      status: event.data.status ?? (to === 'completed' ? 'completed' : 'failed'),
      ...(event.data.reason ? { reason: event.data.reason } : {}),
      ...(event.data.explorer_link ? { explorerLink: event.data.explorer_link } : {}),
      ...(event.data.base_trx_hash || event.data.extl_trx_hash
        ? { hash: event.data.extl_trx_hash ?? event.data.base_trx_hash ?? undefined }
        : {}),
    });
  }

  /**
   * The unsigned bridge callback is a hint: keep its link and hash, say in the request's thread that it
   * came, then confirm with the service (one background read) before the request is called completed.
   */
  async onBridgeCallback(token: string, hint: BridgeCallbackHint): Promise<boolean> {
    const id = await this.core.repo.findIdByCallbackToken(token);
    if (!id) return false;
    const explorerLink = httpsUrl(hint.explorerLink);
    const note = `Bridge callback received: ${plainWords(hint.status) || 'no status given'}${explorerLink ? `, ${shownLink(explorerLink)}` : ''} — confirming with the service`;
    let told = false;
    const noted = await this.core.locked(id, async (request) => {
      if (!request || (request.state !== 'sent' && request.state !== 'outcome-unknown')) return undefined;
      const now = this.core.now();
      const outcome = {
        ...request.outcome,
        ...(explorerLink ? { explorerLink } : {}),
        ...(hint.hash ? { hash: hint.hash } : {}),
      };
      let next = { ...request, outcome, nextCheckAt: now.toISOString() } as ApprovalRequest;
      // The callback is sent once; the same one again (a replay) is not said twice.
      const last = request.history.at(-1);
      told = !(last?.action === 'bridge-callback' && last.note === note);
      if (told) next = withNotice(next, 'bridge-callback', note, now);
      await this.core.write(request, next, { audit: told });
      return next;
    });
    if (noted && told) await this.core.notify(noted);
    if (noted?.state === 'sent') await this.pollOne(noted);
    return true;
  }

  /** Move a sent (or outcome-unknown) request to completed/failed, once. */
  async finish(
    id: string,
    to: 'completed' | 'failed',
    action: string,
    outcome: ExecutionOutcome,
  ): Promise<ApprovalRequest | undefined> {
    const done = await this.core.locked(id, async (request) => {
      if (!request || (request.state !== 'sent' && request.state !== 'outcome-unknown')) return undefined;
      const merged = { ...request.outcome, ...outcome };
      const next = transition({ ...request, outcome: merged }, to, {
        action: to,
        note: to === 'failed' && merged.reason ? `${action}: ${merged.reason}` : action,
        at: this.core.now(),
      });
      await this.core.write(request, next);
      return next;
    });
    if (done) await this.core.notify(done);
    return done;
  }

  private isDue(request: ApprovalRequest, now: Date): boolean {
    if (request.nextCheckAt) return Date.parse(request.nextCheckAt) <= now.getTime();
    const since = request.history.at(-1)?.at ?? request.createdAt;
    return Date.parse(since) + this.pollBaseMs <= now.getTime();
  }

  async reschedule(request: ApprovalRequest): Promise<void> {
    await this.core.locked(request.id, async (current) => {
      if (!current || current.state !== request.state) return;
      const checks = (current.checks ?? 0) + 1;
      const wait = Math.min(this.pollBaseMs * 2 ** checks, this.pollMaxMs);
      const nextCheckAt = new Date(this.core.now().getTime() + wait).toISOString();
      await this.core.write(current, { ...current, checks, nextCheckAt }, { audit: false });
    });
  }

  /** One slow poll of a sent request's status. */
  async pollOne(request: ApprovalRequest): Promise<void> {
    const reference = request.outcome?.reference;
    if (!reference) return;
    const api = this.core.options.api;
    const tx =
      request.kind === 'withdraw'
        ? await api.verifyWithdrawal(reference, { priority: 'background' })
        : await api.getTransaction(reference, { priority: 'background' });
    const status = classifyStatus(tx.status);
    if (status === 'succeeded' || status === 'failed') {
      await this.finish(
        request.id,
        status === 'succeeded' ? 'completed' : 'failed',
        'checked',
        outcomeFromTransaction(tx),
      );
    } else {
      await this.reschedule(request);
    }
  }

  /**
   * One pass: expire; take over executing requests whose caller's lease ran out; send what is approved
   * but was never started; poll what is due; reconcile what is unknown. Errors are logged, retried later.
   */
  async tick(): Promise<void> {
    await this.core.expireDue();
    // Approved and not executing means never sent (executing is saved before any call): a crash
    // between claim and save, a claimant that stopped before its write-ahead mark, or a background
    // start that failed. The claim makes it one call.
    for (const request of await this.core.openRequests()) {
      let state = request.state;
      if (state === 'pending' && request.checking && this.checkAbandoned(request)) {
        await this.clearInterruptedCheck(request).catch((error: unknown) => {
          this.core.options.log?.warn('interrupted final approval not cleared; will retry', {
            requestId: request.id,
            error: String(error),
          });
        });
        continue;
      }
      if (state === 'executing' && leaseExpired(request, this.core.now())) {
        try {
          state = (await this.takeOverExpired(request.id))?.state ?? state;
        } catch (error) {
          // The others are still swept; this one is taken over on the next pass.
          this.core.options.log?.warn('executing request not taken over; will retry', {
            requestId: request.id,
            error: String(error),
          });
          continue;
        }
      }
      if (state !== 'approved') continue;
      await this.executor.execute(request.id).catch((error: unknown) => {
        // Sent, but its answer would not go into the store: the lease runs out and it is reconciled.
        const message =
          error instanceof AnswerNotRecordedError
            ? "service answered but the answer was not recorded; it will be reconciled once the execution's lease runs out"
            : 'approved request not started; will retry';
        this.core.options.log?.warn(message, { requestId: request.id, error: String(error) });
      });
    }
    const now = this.core.now();
    const open = await this.core.openRequests();
    for (const request of open.filter((r) => r.state === 'sent' && this.isDue(r, now))) {
      await this.guard([request], () => this.pollOne(request));
    }
    const unknown = open.filter((r) => r.state === 'outcome-unknown');
    const inList = unknown.filter(
      (r) => (r.kind === 'withdraw' || r.kind === 'redeem' || r.kind === 'bridge') && this.isDue(r, now),
    );
    if (inList.length > 0) await this.guard(inList, () => this.reconciler.reconcile(inList));
    for (const request of unknown.filter((r) => r.kind === 'whitelist' && this.isDue(r, now))) {
      await this.guard([request], () => this.reconciler.reconcileWhitelist(request));
    }
    for (const request of unknown.filter((r) => r.kind === 'delegation')) {
      await this.guard([request], () => this.settleDelegation(request));
    }
    for (const request of unknown.filter((r) => r.kind === 'settlement')) {
      if (!hasNotice(request, 'needs-manual-check')) {
        await this.guard([], () => this.reconciler.settlementNeedsAPerson(request));
      }
    }
  }

  /**
   * A delegation whose write was interrupted: the store says whether it was made. Made: it is in effect
   * (completed). Not made: it failed, and nothing is in effect; it is never written later.
   */
  private async settleDelegation(request: ApprovalRequest): Promise<void> {
    if (await this.core.delegations.isRecorded(request.id)) {
      await this.finish(request.id, 'completed', 'found in the store', { status: 'completed' });
    } else {
      await this.finish(request.id, 'failed', 'not found in the store', {
        status: 'failed',
        reason: 'the bot stopped before writing the delegation; nothing is in effect. File it again.',
      });
    }
  }

  /** Run a check; if it fails, log it and look at these requests again later. */
  private async guard(requests: ApprovalRequest[], fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (error) {
      this.core.options.log?.warn('approval tracking failed; will retry', {
        requestIds: requests.map((r) => r.id),
        error: String(error),
      });
      for (const request of requests) await this.reschedule(request).catch(() => {});
    }
  }

  /** A final approval's re-check hold older than any live re-check takes: its process stopped. */
  private checkAbandoned(request: ApprovalRequest): boolean {
    const at = request.checking?.at;
    return at !== undefined && this.core.now().getTime() - Date.parse(at) >= CHECK_HOLD_MS;
  }

  /**
   * The process taking a final approval stopped while it re-checked the figures (a restart): the
   * approval was never saved. Say so in the thread and lift the hold so anyone may approve again;
   * never approve on the person's behalf.
   */
  private async clearInterruptedCheck(read: ApprovalRequest): Promise<void> {
    const cleared = await this.core.locked(read.id, async (current) => {
      if (current?.state !== 'pending' || !current.checking || !this.checkAbandoned(current))
        return undefined;
      const { checking, ...rest } = current;
      const next = transition(rest as ApprovalRequest, 'pending', {
        action: 'check-interrupted',
        actor: checking.user,
        note: 'nothing was approved; approve again',
        at: this.core.now(),
      });
      await this.core.write(current, next);
      return next;
    });
    if (cleared) await this.core.notify(cleared);
  }

  /**
   * An executing request whose caller's lease ran out. Marked as sending: the call may have gone out,
   * so it becomes outcome-unknown and is reconciled at once, never resent. Claimed but unmarked: the
   * call was certainly not made, so it is approved again, for the next claimant to send. Written only
   * if the request is still as read, so a claimant that was only slow and writes its mark first keeps
   * it. A live lease means another replica is mid-call.
   */
  private async takeOverExpired(id: string): Promise<ApprovalRequest | undefined> {
    const taken = await this.core.locked(id, async (current) => {
      const now = this.core.now();
      if (current?.state !== 'executing' || !leaseExpired(current, now)) return undefined;
      let next: ApprovalRequest;
      if (certainlyUnsent(current)) {
        const released = transition(current, 'approved', {
          action: 'released',
          note: 'the bot that claimed it stopped before sending anything; the next one sends it',
          at: now,
        });
        const { execution: _gone, outcome: _none, nextCheckAt: _next, checks: _checks, ...unsent } = released;
        next = unsent as ApprovalRequest;
      } else {
        const { execution: _gone, nextCheckAt: _next, checks: _checks, ...rest } = current;
        next = transition({ ...rest, nextCheckAt: now.toISOString(), checks: 0 }, 'outcome-unknown', {
          action: 'interrupted',
          note: 'the bot making the call stopped before recording the answer; checking the transaction list instead of resending',
          at: now,
        });
      }
      if (!(await this.core.repo.saveIf(current, next))) return undefined;
      // Its claim is spent: the next claimant need not wait out the claim's own lease.
      if (next.state === 'approved' && current.execution) {
        await this.core.repo.endClaim(id, current.round, current.execution.generation, now);
      }
      return next;
    });
    if (taken) await this.core.notify(taken);
    return taken;
  }

  /**
   * Start-up: pick up what a stopped process left. sent and outcome-unknown → track now; the sweep
   * that follows sends what is approved and takes over executing requests whose lease ran out.
   */
  async resume(): Promise<void> {
    await this.core.repo.migrateLegacyOpenSet();
    await this.core.closeOtherEnvironments();
    for (const request of await this.core.openRequests()) {
      if (request.state === 'sent' || request.state === 'outcome-unknown') {
        await this.core.locked(request.id, async (current) => {
          if (current?.state === request.state) {
            const next = { ...current, nextCheckAt: this.core.now().toISOString() };
            await this.core.write(current, next, { audit: false });
          }
        });
      }
    }
    await this.tick();
  }
}

/** An unsigned link is shown only if it is a well-formed https URL. */
function httpsUrl(text: string | undefined): string | undefined {
  if (!text) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An unsigned link as a note shows it (notes are escaped when shown): a checked explorer page as is,
 * any other in a code span, where Slack links nothing.
 */
function shownLink(url: string): string {
  const checked = checkedExplorerUrl(url);
  if (checked) return checked;
  const shown = url.length > 200 ? `${url.slice(0, 200)}…` : url;
  return `a link to an unknown site \`${shown.replace(/`/g, "'")}\``;
}

/** Unsigned text shown to people: a few plain words at most. */
function plainWords(text: string | undefined): string {
  return (text ?? '')
    .replace(/[^\w .-]/g, '')
    .slice(0, 40)
    .trim();
}
