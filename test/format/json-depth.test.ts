// Nesting depth is measured without recursion, so a body nested far deeper than any stack still gets an answer.
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/format/json-depth.js';

const arrays = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects alike, and scalars as no depth', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan(arrays(64), 64)).toBe(false);
    expect(nestsDeeperThan(arrays(65), 64)).toBe(true);
  });

  it('answers for a value nested 200,000 deep (deeper than any call stack)', () => {
    expect(nestsDeeperThan(arrays(200_000), 64)).toBe(true);
  });
});
