// A line of the dead-letter list: a letter whose delivery was signed long ago says it may be a replay,
// so nobody re-posts it as the credit it names without knowing.
import { describe, expect, it } from 'vitest';
import { deadLetterLine } from '../../../src/slack/alerts/dead-letter-blocks.js';
import type { DeadLetter } from '../../../src/webhooks/types.js';

const letter = (stale?: DeadLetter['stale']): DeadLetter =>
  ({
    id: 'dl-0123456789',
    channel: 'CALERTS',
    reason: 'channel_not_found',
    attempts: 5,
    at: '2026-11-23T08:00:00.000Z',
    event: { event: 'deposit.completed', data: { trx_ref: 'REF-1', amount: '2500' } },
    environment: 'live',
    ...(stale ? { stale } : {}),
  }) as DeadLetter;

describe('a dead letter in the list', () => {
  it('is marked a possible replay when its delivery was signed long ago, and not otherwise', () => {
    expect(deadLetterLine(letter(true))).toContain('*deposit.completed* · :warning: possible replay');
    expect(deadLetterLine(letter())).not.toContain('replay');
  });

  it('says which clock is suspect when the letter recorded it', () => {
    expect(deadLetterLine(letter('old'))).toContain(
      ':warning: possible replay (signed longer ago than deliveries are remembered)',
    );
    expect(deadLetterLine(letter('ahead'))).toContain(
      ':warning: possible replay (dated ahead of the bot’s clock)',
    );
    expect(deadLetterLine(letter(true))).toContain(':warning: possible replay ·');
  });
});
