// Whether a signed delivery is too old to be taken as new. The service signs the body only, with no
// replay header, so a copy recorded on the way (a TLS-terminating proxy) verifies forever; once the
// records that dedupe it have expired, only the time signed into the body tells it apart.
import type { WebhookEvent } from '../cngn/schemas.js';
import { outsideTime } from '../format/outside-time.js';
import { aheadLimitMs, freshnessLimitMs } from './outbox.js';

/**
 * The signed time of an event: the later of the envelope's `timestamp` and `data.occurredAt` that reads
 * as a time (the later one, so a slow delivery of an older event is not judged by its older field).
 * Undefined when the body carries neither. Read as `outsideTime` reads it: an ISO time that names no
 * zone is UTC, so replicas in different zones judge one delivery alike.
 */
export function signedEventTime(event: WebhookEvent): number | undefined {
  const times = [event.timestamp, event.data.occurredAt]
    .map(outsideTime)
    .filter((time) => Number.isFinite(time));
  return times.length > 0 ? Math.max(...times) : undefined;
}

/**
 * Whether a delivery's signed time vouches for it: `fresh`, or a person should check it. `stale`: older
 * than the dedupe records last (less a margin), possibly a replay. `ahead`: dated further ahead of the bot's clock
 * than `aheadLimitMs`: one of the two clocks is wrong by hours, and a copy of it sent again after its
 * dedupe records expired could look new (docs/decisions/stale-webhooks-are-not-news.md). An event with no time is fresh
 * (nothing says it is old).
 */
export function eventAge(
  event: WebhookEvent,
  nowMs: number,
  retentionMs: number,
): 'fresh' | 'stale' | 'ahead' {
  const at = signedEventTime(event);
  if (at === undefined) return 'fresh';
  if (nowMs - at > freshnessLimitMs(retentionMs)) return 'stale';
  return at - nowMs > aheadLimitMs(retentionMs) ? 'ahead' : 'fresh';
}
