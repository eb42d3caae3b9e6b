// How a recorded setting reads in a line for people (the approvals channel, `/cngn audit`): the approval
// tiers, durations, reminder points and the way approvers are told in words, read back from the text
// the snapshot stores (`0:1,1000000:2` → `1 below ₦1,000,000.00, 2 from ₦1,000,000.00`). Only the lines
// read differently: the stored values stay as they are, since every install's fingerprint is taken
// over them. A value that does not read as its setting (an older or odd entry) is shown as it is.
import { type ApprovalTier, amountBands } from '../access/index.js';
import { naira } from '../format/display.js';
import { Money } from '../format/money.js';

/** The names a line gives settings whose stored name reads like configuration. */
const SHOWN_NAMES = new Map([['tiers', 'approvals needed by amount']]);

export function settingName(name: string): string {
  return SHOWN_NAMES.get(name) ?? name;
}

/** A setting's stored text in words, or the text itself when it does not read as that setting. */
export function settingWords(name: string, value: string): string {
  return WORDS.get(name)?.(value) ?? value;
}

/** `0:1` (a tier as the snapshot stores it): its smallest amount in plain decimal naira, its approvals. */
const TIER = /^(\d{1,15}(?:\.\d{1,2})?):([1-9]\d{0,5})$/;

/**
 * `0:1,1000000:2` → `1 below ₦1,000,000.00, 2 from ₦1,000,000.00`; one band from ₦0 → `2 for any
 * amount`. The bands are those approvals are counted by (access/tiers.ts `amountBands`): a lowest tier
 * above ₦0 is preceded by `1 below` it, and a tier asking as many as the band before it joins that
 * band. Requests without an amount follow rules of their kind (access/tiers.ts), not these bands: the
 * line is named for amounts. Two tiers from one amount (or out of order) are shown as stored.
 */
function tiersWords(text: string): string | undefined {
  const tiers: ApprovalTier[] = [];
  for (const part of text.split(',')) {
    const [, min, approvals] = TIER.exec(part) ?? [];
    if (min === undefined || approvals === undefined) return undefined;
    const tier = { min: Money.parseDecimal(min), approvals: Number(approvals) };
    const last = tiers.at(-1);
    if (last && tier.min.compare(last.min) <= 0) return undefined;
    tiers.push(tier);
  }
  const bands = amountBands(tiers);
  const [first, second] = bands;
  if (!first) return undefined;
  if (!second) return `${first.approvals} for any amount`;
  const from = bands.slice(1).map((band) => `${band.approvals} from ${naira(band.min.toString())}`);
  return [`${first.approvals} below ${naira(second.min.toString())}`, ...from].join(', ');
}

const UNITS = new Map([
  ['d', 'day'],
  ['h', 'hour'],
  ['m', 'minute'],
  ['s', 'second'],
]);

/** `1d`, `1h 30m`, `1d 2h 30m` (approvals/extend.ts shortDuration) → `1 day`, `1 hour 30 minutes`, … */
function durationWords(text: string): string | undefined {
  const parts = text.split(' ').map((part) => {
    const [, count, unit] = /^(\d{1,9})([dhms])$/.exec(part) ?? [];
    const word = UNITS.get(unit ?? '');
    return count && word ? `${count} ${word}${count === '1' ? '' : 's'}` : undefined;
  });
  return parts.includes(undefined) ? undefined : parts.join(' ');
}

/** `50%,90%` → `at 50% and 90% of the request lifetime`; `none` stays. */
function remindersWords(text: string): string | undefined {
  const points = text.split(',');
  if (!points.every((point) => /^\d{1,2}(?:\.\d+)?%$/.test(point))) return undefined;
  const listed = points.length === 1 ? points[0] : `${points.slice(0, -1).join(', ')} and ${points.at(-1)}`;
  return `at ${listed} of the request lifetime`;
}

/** CNGN_APPROVAL_NOTIFY's values in words. */
const TOLD = new Map([
  ['dm', 'by DM'],
  ['channel', 'in the approvals channel'],
  ['both', 'by DM and in the approvals channel'],
]);

const WORDS = new Map<string, (text: string) => string | undefined>([
  ['tiers', tiersWords],
  ['limit window', durationWords],
  ['request lifetime', durationWords],
  ['reminders', remindersWords],
  ['approvers are told', (text) => TOLD.get(text)],
]);
