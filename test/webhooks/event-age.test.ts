// The signed time a delivery is judged by: ISO text, or epoch seconds or milliseconds written as digits;
// anything else is no time at all (never a year read out of a short number).
import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../src/cngn/schemas.js';
import { eventAge, signedEventTime } from '../../src/webhooks/event-age.js';
import { aheadLimitMs } from '../../src/webhooks/outbox.js';

const event = (timestamp: unknown, occurredAt?: unknown) =>
  ({ event: 'deposit.completed', timestamp, data: { occurredAt } }) as unknown as WebhookEvent;

describe('the signed time of a delivery', () => {
  it('reads ISO text, and epoch seconds or milliseconds written as digits', () => {
    const at = Date.parse('2026-11-23T08:00:00.000Z');
    expect(signedEventTime(event('2026-11-23T08:00:00.000Z'))).toBe(at);
    expect(signedEventTime(event(String(at / 1000)))).toBe(at);
    expect(signedEventTime(event(String(at)))).toBe(at);
  });

  it('is no time for a short number or other text, which Date.parse would read as some year', () => {
    for (const text of ['0', '1', '12', '2026', 'yesterday', '']) {
      expect(signedEventTime(event(text))).toBeUndefined();
    }
  });

  it('takes the later of the envelope time and the event’s own', () => {
    expect(signedEventTime(event('2026-11-01T00:00:00.000Z', '2026-11-20T00:00:00.000Z'))).toBe(
      Date.parse('2026-11-20T00:00:00.000Z'),
    );
  });
});

describe('whether a signed time vouches for a delivery', () => {
  const retentionMs = 30 * 86_400_000;
  const now = Date.parse('2026-11-23T08:00:00.000Z');
  const at = (ms: number) => event(new Date(ms).toISOString());

  it('is fresh within the limit ahead, and a person should check beyond it', () => {
    expect(aheadLimitMs(retentionMs)).toBe(12 * 3_600_000);
    expect(eventAge(at(now + 2 * 3_600_000), now, retentionMs)).toBe('fresh');
    expect(eventAge(at(now + aheadLimitMs(retentionMs)), now, retentionMs)).toBe('fresh');
    expect(eventAge(at(now + aheadLimitMs(retentionMs) + 1), now, retentionMs)).toBe('ahead');
    expect(eventAge(at(now - 29 * 86_400_000 - 1), now, retentionMs)).toBe('stale');
    expect(eventAge(event(undefined), now, retentionMs)).toBe('fresh');
  });

  it('reads a time with no zone as UTC, so replicas in different zones judge a delivery alike', () => {
    const zone = process.env.TZ;
    const verdicts: string[] = [];
    const times: (number | undefined)[] = [];
    try {
      for (const tz of ['Africa/Lagos', 'America/New_York', 'Asia/Tokyo']) {
        process.env.TZ = tz;
        // The zone took effect for Date.parse in this process (Node reads TZ again when it is set).
        expect(new Date(2026, 10, 23).getTimezoneOffset()).toBe(
          { 'Africa/Lagos': -60, 'America/New_York': 300, 'Asia/Tokyo': -540 }[tz],
        );
        const zoneless = new Date(now + 13 * 3_600_000).toISOString().slice(0, -1);
        verdicts.push(eventAge(event(zoneless), now, retentionMs));
        times.push(signedEventTime(event('2026-11-23T08:00:00.000')));
      }
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    expect(verdicts).toEqual(['ahead', 'ahead', 'ahead']);
    expect(times).toEqual([now, now, now]);
  });
});
