// Reading a JSON number back as its sender wrote it.
import { describe, expect, it } from 'vitest';
import { numberSourceAt } from '../../src/format/json-source.js';

describe('numberSourceAt', () => {
  it('gives the number at the path as written, where JSON.parse loses it', () => {
    const json = '{"event":"x","data":{"amount":1e309,"n":2}}';
    expect(JSON.parse(json).data.amount).toBe(Number.POSITIVE_INFINITY);
    expect(numberSourceAt(json, ['data', 'amount'])).toBe('1e309');
    expect(numberSourceAt(`{"data":{"amount":${'9'.repeat(400)}}}`, ['data', 'amount'])).toBe(
      '9'.repeat(400),
    );
    expect(numberSourceAt('{ "data" : { "amount" : -0.001 } }', ['data', 'amount'])).toBe('-0.001');
    expect(numberSourceAt('{"data":{"amount":1E+21}}', ['data', 'amount'])).toBe('1E+21');
  });

  it('looks only at the path: not at the same key elsewhere, in arrays or in strings', () => {
    const json =
      '{"amount":1,"x":{"data":{"amount":2}},"list":[{"data":{"amount":3}}],"s":"\\"data\\":{\\"amount\\":4}","data":{"nested":{"amount":5},"amount":6}}';
    expect(numberSourceAt(json, ['data', 'amount'])).toBe('6');
    expect(numberSourceAt(json, ['amount'])).toBe('1');
  });

  it('is undefined when the value there is not a number, and takes the last of a repeated key', () => {
    expect(numberSourceAt('{"data":{"amount":"12"}}', ['data', 'amount'])).toBeUndefined();
    expect(numberSourceAt('{"data":{"amount":null}}', ['data', 'amount'])).toBeUndefined();
    expect(numberSourceAt('{"data":{"amount":{"v":1}}}', ['data', 'amount'])).toBeUndefined();
    expect(numberSourceAt('{"data":{}}', ['data', 'amount'])).toBeUndefined();
    expect(numberSourceAt('{"data":{"amount":1,"amount":"x"}}', ['data', 'amount'])).toBeUndefined();
    expect(numberSourceAt('{"data":{"amount":"x","amount":7e3}}', ['data', 'amount'])).toBe('7e3');
    expect(numberSourceAt('12.50', [])).toBe('12.50');
  });

  it('walks deep nesting without recursion', () => {
    const deep = `{"data":{"amount":5,"d":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    expect(numberSourceAt(deep, ['data', 'amount'])).toBe('5');
  });
});
