// Sets on the SQLite file: one row per member, keyed `<namespace>:setm:<set>\u0001<member>`, so adding
// or removing a member writes one small row and listing a set is one range read on the primary key.
// A file may still hold sets in the legacy layout, one keyv JSON array under `<namespace>:set:<set>`;
// such arrays are converted into rows once, when the store is opened.
import type { Query } from './group-commit.js';
import { prefixRange } from './sqlite-keys.js';

/** Between a set's name and a member: no set name holds it, and it sorts before any member text. */
const SEPARATOR = '\u0001';
/** The character after SEPARATOR: every member key of a set sorts below `<prefix>` + this. */
const AFTER_SEPARATOR = '\u0002';

/** The value of a member row: keyv's layout for `true`, so a plain keyv reading the file sees a value. */
export const MEMBER_VALUE = '{"value":true}';

/** `storedKey` is the namespaced key of `setm:<set>`. */
export const memberKey = (storedKey: string, member: string) => `${storedKey}${SEPARATOR}${member}`;

/** The range of keys holding a set's members: `key >= from AND key < to`. */
export const memberRange = (storedKey: string) => ({
  from: `${storedKey}${SEPARATOR}`,
  to: `${storedKey}${AFTER_SEPARATOR}`,
});

/**
 * Convert every set still kept as one JSON array (keys starting `legacy`, the namespaced `set:`) into
 * member rows (under `rows`, the namespaced `setm:`), and drop the arrays, in one transaction. Members
 * come out as keyv would read them (one leading ':' of its escape removed). Run on the writing
 * connection before the store is used, at every open: both statements read only the keys starting
 * `legacy`, a range of the key index, so a file with nothing left to convert costs one index probe,
 * however many rows it holds.
 */
export async function convertLegacySets(
  query: Query,
  table: string,
  legacy: string,
  rows: string,
): Promise<void> {
  const { from, to } = prefixRange(legacy);
  await query('BEGIN IMMEDIATE');
  try {
    await query(
      `INSERT INTO ${table} (key, value)
         SELECT ?2 || substr(s.key, length(?1) + 1) || ?3 ||
                CASE WHEN substr(j.value, 1, 1) = ':' THEN substr(j.value, 2) ELSE j.value END, ?4
         FROM ${table} AS s, json_each(s.value, '$.value') AS j
         WHERE s.key >= ?1 AND s.key < ?5 AND json_valid(s.value) AND j.type = 'text'
       ON CONFLICT(key) DO NOTHING`,
      from,
      rows,
      SEPARATOR,
      MEMBER_VALUE,
      to,
    );
    await query(`DELETE FROM ${table} WHERE key >= ? AND key < ? AND json_valid(value)`, from, to);
    await query('COMMIT');
  } catch (error) {
    await query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
