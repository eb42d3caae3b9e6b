// Key ranges on the SQLite file. keyv's table has its key as the primary key (an index in BINARY
// order, which for UTF-8 text is code point order), so `key >= from AND key < to` is a search of that
// index, where a condition on an expression of the key (substr, LIKE with a bound pattern) reads
// every row of the table.

/** The range of keys starting with `prefix`: `key >= from AND key < to`, exactly those keys. */
export function prefixRange(prefix: string): { from: string; to: string } {
  const chars = Array.from(prefix);
  const last = chars.pop()?.codePointAt(0);
  if (last === undefined) throw new Error('a key range needs a prefix');
  // The code point after the last one: every key starting with `prefix` sorts before it, and no other
  // key sorts between the two. (A lone surrogate is no code point SQLite's UTF-8 text can hold.)
  if ((last >= 0xd800 && last <= 0xdfff) || last === 0x10ffff) {
    throw new Error('a key range needs a prefix that ends in a character with one after it');
  }
  const next = last === 0xd7ff ? 0xe000 : last + 1;
  return { from: prefix, to: chars.join('') + String.fromCodePoint(next) };
}
