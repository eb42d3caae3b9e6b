// The fork an earlier retention cut made when the previous cut's record was kept and entries before
// it were removed: the record sits after that record with its seq. Mended as the start does it, the
// chain verifies; the same log with the head signed by someone else is left as it is.
import { expect, it } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import { type ChainHead, chainEntry, entryHash, verifyChain } from '../../src/audit/chain.js';
import { FORK_REPAIRED, mendCutFork } from '../../src/audit/fork.js';
import { auditDraft } from '../support/engine.js';

function cutParts(seq: number, hash: string, count: number, at: string) {
  const body = {
    at,
    kind: 'audit' as const,
    action: 'cut',
    environment: 'sandbox' as const,
    note: 'removed',
  };
  const draft = { ...body, cut: { seq, hash, count } };
  return { draft, marker: { ...draft, hash: entryHash(draft as AuditEntry) } as AuditEntry };
}

it('mends a record forked after a kept cut record, and leaves one under a head it did not sign', () => {
  const chain: AuditEntry[] = [];
  for (let n = 0; n < 4; n++) chain.push(chainEntry(auditDraft(n), chain.at(-1)));
  const [, e1, e2, e3] = chain as [AuditEntry, AuditEntry, AuditEntry, AuditEntry];
  // The first cut removed seq 0 and 1 and recorded itself as seq 4.
  const first = cutParts(1, e1.hash ?? '', 2, '2026-11-01T10:00:00.000Z');
  const r1 = chainEntry(first.draft, e3);
  // The old cut removed seq 2, kept seq 3 and the record, and linked its own record to seq 3.
  const second = cutParts(2, e2.hash ?? '', 3, '2026-11-01T11:00:00.000Z');
  const forked = chainEntry(second.draft, e3);
  expect(forked.seq).toBe(r1.seq);
  const entries = [second.marker, e3, r1, forked];
  const head: ChainHead = { seq: forked.seq ?? 0, hash: forked.hash ?? '' };
  expect(verifyChain(entries, head).broken?.kind).toBe('reordered');
  const archive = { hashAt: (seq: number) => chain[seq]?.hash, through: 3 };
  const now = new Date('2026-11-01T12:00:00.000Z');

  const mended = mendCutFork(entries, head, true, archive, now);
  expect(mended?.last).toMatchObject({ action: FORK_REPAIRED, seq: 6 });
  const fixed = mended?.entries ?? [];
  expect(fixed.map((e) => e.seq)).toEqual([undefined, 3, 4, 5, 6]);
  expect(fixed[3]).toMatchObject({ action: 'cut', prev: r1.hash });
  expect(verifyChain(fixed, { seq: 6, hash: mended?.last.hash ?? '' }).ok).toBe(true);

  expect(mendCutFork(entries, head, false, archive, now)).toBeUndefined();
  expect(mendCutFork(entries, head, true, { ...archive, through: 5 }, now)).toBeUndefined();
});
