import { describe, expect } from 'vitest';
import {
  lagosTime,
  lagosTimeOfDay,
  maskAccount,
  naira,
  outsideLagosTime,
  outsideRelative,
  relative,
  serviceAmount,
  shortHash,
  UNREADABLE_TIME,
} from '../../src/format/display.js';
import { test as base } from '../support/fixtures.js';
import { hostZoneFixture } from '../support/host-zone.js';

const it = base.extend('hostZone', hostZoneFixture);

describe('display formatting', () => {
  it('shows naira with separators and two decimals, and text that is no amount never as a figure', () => {
    expect(naira('1250000.75')).toBe('₦1,250,000.75');
    expect(naira('100')).toBe('₦100.00');
    expect(naira('-2.5')).toBe('-₦2.50');
    expect(naira('0.000001')).toBe('not a valid amount: "0.000001"');
    expect(naira('-5.4e-323')).toBe('not a valid amount: "-5.4e-323"');
    expect(naira('NaN')).toBe('not a valid amount: "NaN"');
    expect(naira(undefined)).toBe('—');
  });

  it('shows an amount from outside as a figure only when it is a plain amount', () => {
    expect(serviceAmount('1500.5')).toBe('₦1,500.50');
    expect(serviceAmount('999999999999999.99')).toBe('₦999,999,999,999,999.99');
    expect(serviceAmount('-500.00')).toBe('not a valid amount: "-500.00"');
    expect(serviceAmount('0.001')).toBe('not a valid amount: "0.001"');
    expect(serviceAmount('1e309')).toBe('not a valid amount: "1e309"');
    expect(serviceAmount('1000000000000000')).toBe('not a valid amount: "1000000000000000"');
    expect(serviceAmount('9'.repeat(400))).toBe(`not a valid amount: "${'9'.repeat(24)}…"`);
  });

  it('shows times in Lagos (UTC+1) with the weekday, absolute and relative', () => {
    expect(lagosTime('2026-11-23T08:05:00.000Z')).toBe('Mon 23 Nov 2026, 09:05 WAT');
    expect(lagosTime(undefined)).toBeUndefined();
    const now = new Date('2026-11-23T08:00:00.000Z');
    expect(relative('2026-11-23T08:29:00.000Z', now)).toBe('in 29 minutes');
    expect(relative('2026-11-23T07:55:00.000Z', now)).toBe('5 minutes ago');
  });

  it('says a time from outside that is no date is unreadable, and never throws on it', () => {
    const now = new Date('2026-11-23T08:00:00.000Z');
    for (const text of ['1764770000', '2026-12-03 17:00:00 WAT', '03/12/2026 10:00 WAT', 'soon', '']) {
      expect(relative(text, now)).toBe(UNREADABLE_TIME);
    }
    expect(relative('2026-11-23T08:29:00.000Z', new Date(Number.NaN))).toBe(UNREADABLE_TIME);
  });

  it.for(['Asia/Tokyo', 'America/New_York'])(
    'reads a time the service wrote as the intake does, on a host in %s: no zone is UTC, and text no Date should read is no time',
    (zone, { hostZone }) => {
      hostZone(zone);
      const now = new Date('2026-11-23T08:00:00.000Z');
      expect(outsideLagosTime('2026-11-23T08:05:00')).toBe('Mon 23 Nov 2026, 09:05 WAT');
      expect(outsideRelative('2026-11-23T08:05:00', now)).toBe('in 5 minutes');
      expect(outsideLagosTime('1795420800')).toBe(lagosTime('2026-11-23T08:00:00.000Z'));
      for (const text of ['12', '+01', '0000000000x', 'soon', '', undefined]) {
        expect(outsideLagosTime(text), String(text)).toBeUndefined();
        expect(outsideRelative(text, now), String(text)).toBe(UNREADABLE_TIME);
      }
    },
  );

  it('shortens hashes and masks account numbers', () => {
    expect(shortHash('0x1234567890abcdef1234')).toBe('0x1234…1234');
    expect(maskAccount('0123456789')).toBe('••••6789');
  });

  it('gives the time of day alone within the same Lagos day, the full date across midnight', () => {
    const now = new Date('2026-11-23T22:00:00.000Z'); // 23:00 in Lagos
    expect(lagosTimeOfDay(new Date('2026-11-22T23:30:00.000Z'), now)).toBe('00:30 WAT');
    expect(lagosTimeOfDay(new Date('2026-11-22T22:30:00.000Z'), now)).toBe('Sun 22 Nov 2026, 23:30 WAT');
  });
});
