// A recorded setting as a finance team reads it in the approvals channel and `/cngn audit`: the tiers
// as approvals needed per amount, durations, reminders and how approvers are told in words; anything
// that does not read as its setting shown as it is.
import { describe, expect, it } from 'vitest';
import { parseTiers, requiredApprovals } from '../../src/access/index.js';
import { describeChanges, describePolicy } from '../../src/approvals/policy-record.js';
import { settingName, settingWords } from '../../src/approvals/policy-words.js';
import { Money } from '../../src/format/money.js';

const tiers = (value: string) => settingWords('tiers', value);

describe('the approvals needed (tiers)', () => {
  it('says how many approvals each band of amounts needs', () => {
    expect(tiers('0:1,1000000:2')).toBe('1 below ₦1,000,000.00, 2 from ₦1,000,000.00');
    expect(tiers('0:1,1000000:2,5000000:3')).toBe(
      '1 below ₦1,000,000.00, 2 from ₦1,000,000.00, 3 from ₦5,000,000.00',
    );
  });

  it('shows a single tier from ₦0 as one count for any amount', () => {
    expect(tiers('0:2')).toBe('2 for any amount');
  });

  it('keeps kobo exact', () => {
    expect(tiers('0:1,1500.5:2,2000.05:3')).toBe('1 below ₦1,500.50, 2 from ₦1,500.50, 3 from ₦2,000.05');
    expect(tiers('0:1,999999999999999.99:2')).toBe(
      '1 below ₦999,999,999,999,999.99, 2 from ₦999,999,999,999,999.99',
    );
  });

  it('says that amounts below a lowest tier above ₦0 need one approval, as the engine counts them', () => {
    expect(tiers('1000:2')).toBe('1 below ₦1,000.00, 2 from ₦1,000.00');
    expect(tiers('500:1,1000:2')).toBe('1 below ₦1,000.00, 2 from ₦1,000.00');
    for (const [amount, needed] of [
      ['999.99', 1],
      ['1000', 2],
    ] as const) {
      expect(requiredApprovals(parseTiers('1000:2'), Money.parse(amount), 'withdraw')).toBe(needed);
    }
  });

  it('shows a value that is no tiers the bot stores as it is, never throwing', () => {
    for (const odd of [
      '',
      '0:1,abc',
      '1000000:2,0:1',
      '0:1,0:2',
      '0:0',
      '0:1,',
      ' 0:1',
      '1e6:2',
      '0:1;5:2',
    ]) {
      expect(tiers(odd)).toBe(odd);
    }
  });

  it('is named approvals needed by amount in a line, its stored name unchanged', () => {
    expect(settingName('tiers')).toBe('approvals needed by amount');
    expect(
      describeChanges([{ name: 'tiers', value: '0:1' }], [{ name: 'tiers', value: '0:1,1000000:2' }]),
    ).toEqual(['approvals needed by amount: 1 for any amount → 1 below ₦1,000,000.00, 2 from ₦1,000,000.00']);
    expect(describeChanges([{ name: 'tiers', value: 'odd' }], [{ name: 'tiers', value: '0:2' }])).toEqual([
      'approvals needed by amount: odd → 2 for any amount',
    ]);
  });

  it('adds the values as set to a change whose two sides read alike', () => {
    expect(
      describeChanges(
        [{ name: 'tiers', value: '500:1,1000000:2' }],
        [{ name: 'tiers', value: '0:1,1000000:2' }],
      ),
    ).toEqual([
      'approvals needed by amount: 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 → 1 below ₦1,000,000.00, 2 from ₦1,000,000.00 (as set: 500:1,1000000:2 → 0:1,1000000:2)',
    ]);
  });
});

describe('the other settings in words', () => {
  it('writes durations out', () => {
    expect(settingWords('limit window', '1d')).toBe('1 day');
    expect(settingWords('request lifetime', '1h 30m')).toBe('1 hour 30 minutes');
    expect(settingWords('request lifetime', '2d 1s')).toBe('2 days 1 second');
  });

  it('says when reminders come', () => {
    expect(settingWords('reminders', '50%')).toBe('at 50% of the request lifetime');
    expect(settingWords('reminders', '25%,50%,90.5%')).toBe('at 25%, 50% and 90.5% of the request lifetime');
    expect(settingWords('reminders', 'none')).toBe('none');
  });

  it('says how approvers are told', () => {
    expect(settingWords('approvers are told', 'dm')).toBe('by DM');
    expect(settingWords('approvers are told', 'channel')).toBe('in the approvals channel');
    expect(settingWords('approvers are told', 'both')).toBe('by DM and in the approvals channel');
  });

  it('shows what it cannot read, and every other setting, as it is', () => {
    expect(settingWords('limit window', '1 week')).toBe('1 week');
    expect(settingWords('reminders', '1h,4h')).toBe('1h,4h');
    expect(settingWords('approvers are told', 'pigeon')).toBe('pigeon');
    expect(settingWords('constructor', 'x')).toBe('x');
    expect(describePolicy([{ name: 'frozen at start', value: 'no' }])).toEqual(['frozen at start: no']);
  });
});
