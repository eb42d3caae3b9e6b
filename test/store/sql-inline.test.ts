// Parameters written into a statement's text must read back in SQLite exactly as the same values
// bound: same type, same value, byte for byte. Checked against a real SQLite, binding beside inlining.
import fc from 'fast-check';
import sqlite3 from 'sqlite3';
import { describe, expect } from 'vitest';
import { inlineParameters, sqlLiteral } from '../../src/store/sql-inline.js';
import { test } from '../support/fixtures.js';
import { ANY_CHARACTER, assertFuzz, OBJECT_MEMBER_NAMES } from '../support/fuzz-inputs.js';

/** `all(sql, params)`: the rows of a statement on one in-memory SQLite, opened once for the file. */
const it = test
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('db', { scope: 'file' }, async ({}, { onCleanup }) => {
    const db = new sqlite3.Database(':memory:');
    onCleanup(() => new Promise<void>((resolve) => db.close(() => resolve())));
    return db;
  })
  .extend(
    'all',
    ({ db }) =>
      (sql: string, params: unknown[] = []) =>
        new Promise<unknown[]>((resolve, reject) =>
          db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))),
        ),
  );

const bindable = fc.oneof(
  fc.string({ unit: ANY_CHARACTER }),
  fc.string().map((s) => `${s}'${s}`),
  fc.constantFrom('', "'", "''", '?', '?1', '--', '/*', '\u0000', 'a\u0000b', '\u0001', 'é₦😀'),
  fc.constantFrom(...OBJECT_MEMBER_NAMES),
  fc.integer(),
  fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: -(2 ** 31) - 10, max: -(2 ** 31) + 10 }),
  fc.integer({ min: 2 ** 31 - 10, max: 2 ** 31 + 10 }),
  fc.constant(Date.now()),
  fc.boolean(),
  fc.constant(null),
  fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
);

describe('inlineParameters', () => {
  it('gives SQLite the same values, of the same types, as binding them', async ({ all }) => {
    await assertFuzz(
      fc.asyncProperty(fc.array(bindable, { minLength: 1, maxLength: 4 }), async (params) => {
        const columns = params.map((_, i) => `?${i + 1} AS c${i}, typeof(?${i + 1}) AS t${i}`).join(', ');
        const sql = `SELECT ${columns}`;
        const inlined = inlineParameters(sql, params);
        expect(inlined).toBeDefined();
        expect(await all(inlined as string)).toEqual(await all(sql, params));
      }),
      500,
    );
  });

  it('numbers bare and numbered parameters as SQLite does, and leaves quoted text and comments alone', async ({
    all,
  }) => {
    const sql = "SELECT ? AS a, '?' AS b, 'x' AS \"x?\", ?3 AS c, ? AS d -- ?\n, /* ? */ 1 AS [e?], ?1 AS f";
    // '?' → 1, ?3 → 3, the next bare '?' → 4, ?1 → 1 again.
    const params = ['one', 'two', 'three', 'four'];
    expect(await all(inlineParameters(sql, params) as string)).toEqual([
      { a: 'one', b: '?', 'x?': 'x', c: 'three', d: 'four', 'e?': 1, f: 'one' },
    ]);
    expect(await all(sql, params)).toEqual(await all(inlineParameters(sql, params) as string));
  });

  it('writes a negative number so that it cannot open a comment after a minus sign', async ({ all }) => {
    const sql = 'SELECT 10 -?\n AS x';
    expect(await all(inlineParameters(sql, [-5]) as string)).toEqual([{ x: 15 }]);
    expect(await all(sql, [-5])).toEqual([{ x: 15 }]);
  });

  it('declines what it cannot write out exactly, so the statement is bound instead', () => {
    expect(inlineParameters('SELECT ?', [{ an: 'object' }])).toBeUndefined();
    expect(inlineParameters('SELECT ?', [Number.NaN])).toBeUndefined();
    expect(inlineParameters('SELECT ?', [-(2 ** 53)])).toBeUndefined(); // beyond exact whole numbers: bound
    expect(inlineParameters('SELECT ?', [4.61221729974161e-123])).toBeUndefined(); // SQLite reads its text otherwise
    expect(inlineParameters('SELECT ?', ['one', 'two'])).toBeUndefined(); // a parameter left over
    expect(inlineParameters('SELECT ?, ?', ['one'])).toBeUndefined(); // a parameter missing
    expect(inlineParameters('SELECT :name', ['one'])).toBeUndefined(); // named
    expect(inlineParameters('SELECT $1, ?', ['one'])).toBeUndefined(); // named by a digit
    expect(inlineParameters("SELECT 'unclosed", [])).toBeUndefined();
    expect(sqlLiteral("it's")).toBe("'it''s'");
  });
});
