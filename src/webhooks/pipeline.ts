// What happens to an event once it is verified: dedupe, store in the outbox (durably, before the
// sender is answered) with the record that its final state was announced, in one atomic store call;
// then wake the deliverer and tell subscribers.
import type { CngnEnvironment } from '../cngn/api.js';
import type { WebhookEvent } from '../cngn/schemas.js';
import { type Logger, silentLogger } from '../log.js';
import type { Store, StoreWrite } from '../store/index.js';
import { eventAge, signedEventTime } from './event-age.js';
import {
  dedupeKey,
  type FinalClass,
  finalClaimKeys,
  finalClassOf,
  finalLockNames,
  outboxIdFor,
  refusedOutboxId,
} from './keys.js';
import { DEFAULT_RETENTION_MS, type Outbox, type ReadAlong } from './outbox.js';
import type { AlertOrigin, RefusedReport, StaleKind, WebhookSubscriber } from './types.js';

const SUBSCRIBERS_PENDING = 'webhooks:subscribers:pending';

interface FinalClaim {
  origin: AlertOrigin;
  entryId: string;
}

/** `stale`: stored, but posted only for a person to check (its signed time does not vouch for it). */
export type AcceptResult = 'stored' | 'stale' | 'duplicate';

/** What reading a delivery left out: field names, and the body as it came. */
export interface ReadExtras {
  unreadable?: string[];
  raw?: unknown;
}

/** The outbox id a verified delivery is kept under: its log lines carry it as `webhookId`. */
export function webhookEntryId(event: WebhookEvent, read: ReadExtras = {}): string {
  const partial = read.unreadable && read.unreadable.length > 0 ? read : {};
  return outboxIdFor('webhook', dedupeKey(event, partial.raw));
}

export interface PipelineOptions {
  store: Store;
  outbox: Outbox;
  environment: CngnEnvironment;
  subscribers?: WebhookSubscriber[];
  /** Called after each new entry (the deliverer's kick). */
  onEnqueued?: () => void;
  log?: Logger;
  retentionMs?: number;
  /** The clock a delivery's signed time is judged by (epoch ms). */
  now?: () => number;
}

export class WebhookPipeline {
  private readonly subscribers: WebhookSubscriber[];
  private readonly log: Logger;
  private readonly notifying = new Set<Promise<void>>();

  constructor(private readonly options: PipelineOptions) {
    this.subscribers = [...(options.subscribers ?? [])];
    this.log = options.log ?? silentLogger;
  }

  /** Add a subscriber called once per new event (e.g. approvals). */
  subscribe(subscriber: WebhookSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /**
   * A verified delivery. Resolves once the event is stored durably (or known as a duplicate).
   * `unreadable` names fields left out of it (with the body as it came in `raw`).
   */
  async accept(event: WebhookEvent, read: ReadExtras = {}): Promise<AcceptResult> {
    const partial = read.unreadable && read.unreadable.length > 0 ? read : {};
    // No read first: the outbox entry's claim (a set-if-absent) is what tells a duplicate.
    const id = webhookEntryId(event, partial);
    const retentionMs = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    const age = eventAge(event, (this.options.now ?? Date.now)(), retentionMs);
    if (age !== 'fresh') return this.acceptStale(id, event, partial, age === 'stale' ? 'old' : 'ahead');
    const finalClass = finalClassOf(event);
    const created = finalClass
      ? await this.withFinalLock(event, () => {
          const claims = this.finalClaimWrites(event, finalClass, { origin: 'webhook', entryId: id });
          // A reconciler message for the same final state came first: reply in its thread instead.
          // Its claims are read with the reference's chain, in one store call.
          return this.enqueue(id, event, 'webhook', undefined, partial, claims, {
            keys: finalClaimKeys(event.data, finalClass),
            complete: (values) => {
              const earlier = values.find((value) => value !== undefined) as FinalClaim | undefined;
              // (A state only marked seen has no message: entryId '' — nothing to thread under.)
              return earlier?.origin === 'reconciler' && earlier.entryId ? { threadOf: earlier.entryId } : {};
            },
          });
        })
      : await this.enqueue(id, event, 'webhook', undefined, partial);
    return created ? 'stored' : 'duplicate';
  }

  /**
   * A transaction the reconciler found in a final state: queued unless a webhook (or an earlier run)
   * already announced that state. True when queued.
   */
  async acceptReconciled(event: WebhookEvent, finalClass: FinalClass): Promise<boolean> {
    const id = outboxIdFor('reconciler', dedupeKey(event));
    return this.withFinalLock(event, async () => {
      if (await this.finalClaim(event, finalClass)) return false;
      const claim: FinalClaim = { origin: 'reconciler', entryId: id };
      const ok = await this.enqueue(
        id,
        event,
        'reconciler',
        undefined,
        {},
        this.finalClaimWrites(event, finalClass, claim),
      );
      if (!ok) await this.claimFinal(event, finalClass, claim);
      return ok;
    });
  }

  /** Record a final state as seen without posting (the reconciler's first-run baseline). */
  async markSeen(event: WebhookEvent, finalClass: FinalClass): Promise<void> {
    await this.claimFinal(event, finalClass, { origin: 'reconciler', entryId: '' });
  }

  /** A final state seen again: its records live on for another retention period. */
  async keepSeen(event: WebhookEvent, finalClass: FinalClass): Promise<void> {
    const ttl = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    for (const key of finalClaimKeys(event.data, finalClass)) {
      const claim = await this.options.store.get<FinalClaim>(key);
      if (claim) await this.options.store.set(key, claim, ttl);
    }
  }

  /**
   * A subscriber would settle nothing by the delivery `delivery` (see RefusedReport): a needs-a-person
   * alert, once per delivery (its id is the delivery's), after the delivery's own alert and in its
   * thread. No subscriber hears of it. False when the delivery is not in the outbox, or already told.
   * A webhook threaded under the reconciler's post of the same final state is that post's delivery
   * come late: keyed by the post (and what it refuses), so whichever came first is the one alert; a
   * different refusal in the same thread is its own alert. One not alerted is logged.
   */
  async refused(delivery: string | undefined, refused: RefusedReport): Promise<boolean> {
    const said = refusalFields(delivery, refused);
    const parent = delivery ? await this.options.outbox.get(delivery) : undefined;
    if (!parent) {
      this.log.warn('a refused report is not alerted: its delivery is not in the outbox', said);
      return false;
    }
    const named = refused.named.map((n) => n.requestId);
    const id = refusedOutboxId(parent.threadOf ?? delivery ?? '', refused.why, named);
    const created = await this.options.outbox
      .enqueue({
        id,
        origin: parent.origin,
        environment: parent.environment,
        event: parent.event,
        ...(parent.orderKey ? { orderKey: parent.orderKey } : {}),
        threadOf: parent.id,
        refused,
      })
      .catch((error: unknown) => {
        // Not dropped: the delivery's subscribers run again at the next start, and it is alerted then.
        this.log.warn('a refused report is not alerted yet: the outbox did not take its alert', {
          ...said,
          error: error instanceof Error ? error.message : String(error),
        });
        throw error;
      });
    if (created) this.options.onEnqueued?.();
    else
      this.log.warn('a refused report is not alerted again: its delivery was told already', {
        ...said,
        alertId: id,
      });
    return created;
  }

  /** Re-run subscribers for events stored before a restart whose subscribers had not all finished. */
  async resumeSubscribers(): Promise<void> {
    for (const id of await this.options.store.setMembers(SUBSCRIBERS_PENDING)) {
      const entry = await this.options.outbox.get(id);
      if (!entry) {
        await this.options.store.removeFromSet(SUBSCRIBERS_PENDING, id);
        continue;
      }
      this.notify(id, entry.event, entry.unreadable);
    }
  }

  /** Wait for subscriber calls in flight (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.notifying.size > 0) await Promise.allSettled([...this.notifying]);
  }

  /** Kept (it is signed) but announces nothing: no final-state claim, no subscriber, a warning only. */
  private async acceptStale(
    id: string,
    event: WebhookEvent,
    partial: ReadExtras,
    stale: StaleKind,
  ): Promise<AcceptResult> {
    const created = await this.enqueue(id, event, 'webhook', undefined, { ...partial, stale });
    if (created) {
      const at = new Date(signedEventTime(event) ?? 0).toISOString();
      const why = stale === 'old' ? 'too old to be new' : "ahead of the bot's clock";
      this.log
        .child({ webhookId: id })
        .warn(`webhook ${event.event} signed at ${at} is ${why}; posted as a possible replay`);
    }
    return created ? 'stale' : 'duplicate';
  }

  private async enqueue(
    id: string,
    event: WebhookEvent,
    origin: AlertOrigin,
    threadOf?: string,
    read: ReadExtras & { stale?: StaleKind } = {},
    alongside: StoreWrite[] = [],
    along?: ReadAlong,
  ): Promise<boolean> {
    const { data } = event;
    const orderKey = data.trx_ref ?? data.transactionId ?? undefined;
    // Stored with the entry in one atomic step: its final-state claims and, for subscribers, its id.
    const writes = [...alongside];
    // A stale delivery settles nothing: subscribers (approvals) never hear of it.
    const notified = this.subscribers.length > 0 && !read.stale;
    if (notified) writes.push({ kind: 'addToSet', set: SUBSCRIBERS_PENDING, member: id });
    const created = await this.options.outbox.enqueue(
      {
        id,
        origin,
        environment: this.options.environment,
        event,
        ...(orderKey ? { orderKey } : {}),
        ...(threadOf ? { threadOf } : {}),
        ...(read.unreadable?.length ? { unreadable: read.unreadable, raw: read.raw } : {}),
        ...(read.stale ? { stale: read.stale } : {}),
      },
      writes,
      along,
    );
    if (!created) return false;
    this.options.onEnqueued?.();
    if (notified) this.notify(id, event, read.unreadable);
    return true;
  }

  private notify(id: string, event: WebhookEvent, unreadable: readonly string[] = []): void {
    if (this.subscribers.length === 0) return;
    const run = (async () => {
      let allOk = true;
      for (const subscriber of this.subscribers) {
        try {
          await subscriber(event, unreadable, id);
        } catch (error) {
          allOk = false;
          this.log.error(
            `a webhook subscriber failed on ${event.event}: ${error instanceof Error ? error.message : String(error)}`,
            { error },
          );
        }
      }
      // A failed subscriber is tried again at the next start (subscribers must be idempotent).
      if (allOk) await this.options.store.removeFromSet(SUBSCRIBERS_PENDING, id);
    })();
    this.notifying.add(run);
    void run.finally(() => this.notifying.delete(run));
  }

  private withFinalLock<T>(event: WebhookEvent, fn: () => Promise<T>): Promise<T> {
    const { store } = this.options;
    const locked = finalLockNames(event.data).reduceRight<() => Promise<T>>(
      (inner, name) => () => store.withLock(name, inner),
      fn,
    );
    return locked();
  }

  /** The claim under the first identifier that has one (by reference before by id). */
  private async finalClaim(event: WebhookEvent, finalClass: FinalClass): Promise<FinalClaim | undefined> {
    const claims = await this.options.store.getMany<FinalClaim>(finalClaimKeys(event.data, finalClass));
    return claims.find((claim) => claim !== undefined);
  }

  private finalClaimWrites(event: WebhookEvent, finalClass: FinalClass, claim: FinalClaim): StoreWrite[] {
    const ttlMs = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    return finalClaimKeys(event.data, finalClass).map((key) => ({
      kind: 'setIfAbsent' as const,
      key,
      value: claim,
      ttlMs,
    }));
  }

  private async claimFinal(event: WebhookEvent, finalClass: FinalClass, claim: FinalClaim): Promise<void> {
    const ttl = this.options.retentionMs ?? DEFAULT_RETENTION_MS;
    // Under every identifier known here: a later webhook may name the transaction by either one only.
    for (const key of finalClaimKeys(event.data, finalClass)) {
      await this.options.store.setIfAbsent(key, claim, ttl);
    }
  }
}

/** What a refusal's log line says: its delivery, why, and the requests it names (ids, no outside text). */
function refusalFields(delivery: string | undefined, refused: RefusedReport): Record<string, unknown> {
  const requestIds = [...new Set(refused.named.map((n) => n.requestId).filter((id) => id !== 'none'))];
  return { delivery: delivery ?? 'none', why: refused.why, requestIds };
}
