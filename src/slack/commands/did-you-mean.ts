// "Did you mean": the name closest to a mistyped word by edit distance (Levenshtein), when it is close
// enough to be a typo of it (at most a third of the name's letters, at least one).

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}

/** The closest of `names` to `word` (case does not matter), or undefined when none is close enough. */
export function closest(word: string, names: readonly string[]): string | undefined {
  const ranked = names
    .map((name) => ({ name, d: distance(word.toLowerCase(), name) }))
    .sort((a, b) => a.d - b.d);
  const best = ranked[0];
  return best && best.d <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : undefined;
}
