// PLACEHOLDER until the look-alike detector lands: the signature is the agreed contract, the body a
// minimal stand-in (same length, same first and last four characters after any `0x`, a different
// middle). The real detector, its thresholds and their tests replace this file whole.

export interface LookAlike {
  candidate: string;
  known: string;
  /** [start, end) index ranges of candidate where it differs from known */
  differs: Array<[number, number]>;
}

const EDGE = 4;

export function findLookAlike(candidate: string, known: readonly string[]): LookAlike | undefined {
  for (const other of known) {
    if (other === candidate || other.length !== candidate.length) continue;
    const start = /^0x/i.test(candidate) ? 2 : 0;
    const head = start + EDGE;
    if (candidate.length < head + EDGE + 1) continue;
    const same = (i: number) => candidate[i]?.toLowerCase() === other[i]?.toLowerCase();
    let edgesMatch = true;
    for (let i = start; i < head; i++) if (!same(i)) edgesMatch = false;
    for (let i = candidate.length - EDGE; i < candidate.length; i++) if (!same(i)) edgesMatch = false;
    if (!edgesMatch) continue;
    const differs: Array<[number, number]> = [];
    for (let i = head; i < candidate.length - EDGE; i++) {
      if (same(i)) continue;
      const last = differs.at(-1);
      if (last && last[1] === i) last[1] = i + 1;
      else differs.push([i, i + 1]);
    }
    if (differs.length > 0) return { candidate, known: other, differs };
  }
  return undefined;
}
