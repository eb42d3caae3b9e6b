// The last few alerts, kept as one short list in the store for App Home ("last alerts"): written once
// per accepted event by a pipeline subscriber, read without calling the service or Slack.
import type { WebhookEvent } from '../cngn/schemas.js';
import { outsideTime } from '../format/outside-time.js';
import type { Store } from '../store/index.js';
import { dedupeKey } from './keys.js';

export interface RecentAlert {
  /** The event's identity (see dedupeKey): a replayed subscriber call records it once. */
  key: string;
  event: string;
  /** ISO: the event's own time as the intake reads it, else when it was recorded. */
  at: string;
  amount?: string;
  status?: string;
  reference?: string;
}

const RECENT_KEY = 'webhooks:recent';
export const RECENT_ALERTS_KEPT = 10;

export class RecentAlerts {
  constructor(
    private readonly store: Store,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** A webhook subscriber: remember the event, newest first, at most RECENT_ALERTS_KEPT. */
  readonly record = async (event: WebhookEvent): Promise<void> => {
    const key = dedupeKey(event);
    const { data } = event;
    const alert: RecentAlert = {
      key,
      event: event.event,
      at: alertTime(event, this.now()),
      ...(data.amount ? { amount: String(data.amount) } : {}),
      ...(data.status ? { status: data.status } : {}),
      ...(data.trx_ref ? { reference: data.trx_ref } : {}),
    };
    await this.store.withLock(RECENT_KEY, async () => {
      const list = (await this.store.get<RecentAlert[]>(RECENT_KEY)) ?? [];
      if (list.some((a) => a.key === key)) return;
      await this.store.set(RECENT_KEY, [alert, ...list].slice(0, RECENT_ALERTS_KEPT));
    });
  };

  async latest(n = 5): Promise<RecentAlert[]> {
    return ((await this.store.get<RecentAlert[]>(RECENT_KEY)) ?? []).slice(0, n);
  }
}

/**
 * The event's own time (else its envelope's), read the way the intake reads a signed time, so epoch
 * seconds as text are shown as the time they are; the time it was recorded when neither reads as one.
 */
function alertTime(event: WebhookEvent, recordedAt: Date): string {
  const at = [event.data.occurredAt, event.timestamp].map(outsideTime).find((time) => Number.isFinite(time));
  return (at === undefined ? recordedAt : new Date(at)).toISOString();
}
