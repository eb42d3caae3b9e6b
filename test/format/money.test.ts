import { describe, expect, it } from 'vitest';
import { AMOUNT_HINT, amountReason, Money, MoneyFormatError } from '../../src/format/money.js';

describe('Money', () => {
  it('reads what people type, with separators and the naira sign', () => {
    expect(Money.parse('1500').toString()).toBe('1500.00');
    expect(Money.parse('1,500.5').toString()).toBe('1500.50');
    expect(Money.parse('₦1,250,000.75').toString()).toBe('1250000.75');
    expect(Money.parse(' NGN 100 ').toString()).toBe('100.00');
  });

  it('refuses more than two decimals and anything that is not a number', () => {
    for (const bad of ['1.005', 'abc', '', '1e3', '1.2.3', '0x10', '--1']) {
      expect(() => Money.parse(bad), bad).toThrow(MoneyFormatError);
    }
  });

  it('takes commas only between groups of three digits, and says so when they are not', () => {
    const good: Array<[string, string]> = [
      ['1,000', '1000.00'],
      ['10,000.50', '10000.50'],
      ['₦1,000,000', '1000000.00'],
      ['999,999.9', '999999.90'],
    ];
    for (const [typed, read] of good) {
      expect(Money.parse(typed).toString(), typed).toBe(read);
    }
    for (const bad of [
      '1,0000',
      '1,00,0',
      '1,00',
      '10,00,000',
      ',100',
      '1,',
      '1,,000',
      '1000,000',
      '1,000.5,0',
      '0,500',
      '00,100',
      '-0,250',
    ]) {
      expect(() => Money.parse(bad), bad).toThrow(MoneyFormatError);
    }
    let error: unknown;
    try {
      Money.parse('1,0000');
    } catch (caught) {
      error = caught;
    }
    expect(amountReason(error)).toBe('commas go between groups of three digits, e.g. 10,000 or 1,500.50');
    expect(amountReason(new MoneyFormatError('x'))).toBe(AMOUNT_HINT);
  });

  it('sends the exact JSON number that was typed, with no float drift', () => {
    const cases: Array<[string, string]> = [
      ['1500.50', '1500.5'],
      ['0.10', '0.1'],
      ['0.29', '0.29'],
      ['100', '100'],
      ['1234567890.99', '1234567890.99'],
      ['9999999999999.99', '9999999999999.99'],
    ];
    for (const [typed, wire] of cases) {
      const money = Money.parse(typed);
      expect(JSON.stringify({ amount: money.toWireNumber() })).toBe(`{"amount":${wire}}`);
      expect(Money.fromService(money.toWireNumber()).equals(money)).toBe(true);
    }
  });

  it('refuses to send an amount a JSON number cannot carry exactly', () => {
    expect(() => Money.parse('900719925474099.99').toWireNumber()).toThrow(MoneyFormatError);
  });

  it('adds and compares in kobo', () => {
    const sum = Money.parse('0.10').plus(Money.parse('0.20'));
    expect(sum.toString()).toBe('0.30');
    expect(sum.equals(Money.parse('0.3'))).toBe(true);
    expect(Money.parse('5').minus(Money.parse('7.25')).toString()).toBe('-2.25');
    expect(Money.parse('2').compare(Money.parse('10'))).toBe(-1);
    expect(Money.zero().isPositive()).toBe(false);
  });

  it('reads service amounts given as strings or numbers', () => {
    expect(Money.fromService('150000.00').toString()).toBe('150000.00');
    expect(Money.fromService(1000000).toString()).toBe('1000000.00');
    expect(Money.fromService(25000.5).toPlainString()).toBe('25000.5');
  });

  it('refuses a service number too small for kobo as it refuses the same amount written out', () => {
    expect(() => Money.fromService('0.0000001')).toThrow(MoneyFormatError);
    expect(() => Money.fromService(1e-7)).toThrow(MoneyFormatError);
    expect(() => Money.fromService(-5e-9)).toThrow(MoneyFormatError);
    expect(() => Money.fromService(1e21)).toThrow(MoneyFormatError);
    expect(Money.fromService(0).toString()).toBe('0.00');
  });
});
