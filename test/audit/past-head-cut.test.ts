// What a store writer without the key can put past the signed head is never signed over: a retention
// cut goes on only from a verified head whose entry ends the list, and moves the head from the one it
// read; an append puts its own entry in even when another sits at its seq; a head carrying an entry
// other than the one it names is a finding, never appended; and the check shows entries past the head
// before any append records them.
import { describe, expect } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import { type ChainHead, entryHash, verifyChain } from '../../src/audit/chain.js';
import { AuditLog, HEAD_UNVERIFIED } from '../../src/audit/log.js';
import { auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';
import {
  afterHeadMoves,
  forgePastHead,
  HEAD,
  LIST,
  lapsedLog,
  loggedReplica,
  wrapped,
} from './past-head-support.js';

const cutBefore = (n: number) => new Date(Date.parse(auditDraft(n).at));

describe('a retention cut and entries past the signed head', () => {
  auditTest(
    'a cut finding an entry past the head cuts nothing; the check shows it, and the next append records it',
    async ({ replicas, auditReplica }) => {
      const { store, replica, told } = await loggedReplica(
        { replicas, auditReplica },
        'audit-cut-past-head',
        4,
      );
      const head = await store.get<ChainHead>(HEAD);
      const forged = await forgePastHead(store, 40);

      expect(await replica.log.cut('sandbox', cutBefore(2), new Date(), () => true)).toBe(0);
      expect(await store.get<ChainHead>(HEAD)).toEqual(head);
      const check = await replica.keeper.check();
      expect(check.ok).toBe(false);
      expect(check.problems.map((p) => p.kind)).toContain('entries-past-head');

      await replica.log.append('sandbox', auditDraft(7));
      const after = await store.readList<AuditEntry>(LIST, 0, -1);
      expect(after[4]?.hash).toBe(forged.hash);
      expect(after.slice(5).map((e) => [e.seq, e.action])).toEqual([
        [5, HEAD_UNVERIFIED],
        [6, 'approved'],
      ]);
      expect(told).toEqual([['entries-past-head', 5]]);
    },
  );

  auditTest(
    'an append past a lapsed lock that moves the head while a cut writes makes the cut give up',
    async ({ replicas, auditReplica }) => {
      const { store, replica } = await loggedReplica({ replicas, auditReplica }, 'audit-cut-lapsed', 4);
      const lapsed = lapsedLog(store, replica.seal);
      let landed: AuditEntry | undefined;
      const cutter = new AuditLog(
        wrapped(store, {
          appendToList: (async (key: string, value: unknown) => {
            if (key !== LIST && !landed) landed = await lapsed.append('sandbox', auditDraft(8));
            return store.appendToList(key, value);
          }) as never,
        }),
      );
      cutter.signWith(replica.seal);

      expect(await cutter.cut('sandbox', cutBefore(2), new Date(), () => true)).toBe(0);
      expect(landed).toBeDefined();
      const entries = await replica.log.entries('sandbox');
      expect(entries.at(-1)?.hash).toBe(landed?.hash);
      expect((await store.get<ChainHead>(HEAD))?.hash).toBe(landed?.hash);
      expect((await replica.keeper.check()).ok).toBe(true);
      // The next cut goes through, and removes the unused list the first one left.
      expect(await replica.log.cut('sandbox', cutBefore(2), new Date(), () => true)).toBe(2);
      expect((await store.readList<AuditEntry>(`${LIST}:g1`, 0, -1)).map((e) => e.seq)).toEqual([
        undefined,
        2,
        3,
        4,
        5,
      ]);
      expect((await replica.log.verify('sandbox')).ok).toBe(true);
    },
  );
});

describe('an append and entries a store writer puts in meanwhile', () => {
  auditTest(
    'an entry forged at the seq of an append between its head move and its list write does not keep it out',
    async ({ replicas, auditReplica }) => {
      const { store, replica } = await loggedReplica({ replicas, auditReplica }, 'audit-holds-forged', 3);
      let forged: AuditEntry | undefined;
      const racing = new AuditLog(
        wrapped(
          store,
          afterHeadMoves(store, async () => {
            forged ??= await forgePastHead(store, 41);
          }),
        ),
      );
      racing.signWith(replica.seal);
      const entry = await racing.append('sandbox', auditDraft(3));

      expect(forged?.seq).toBe(entry.seq);
      const list = await store.readList<AuditEntry>(LIST, 0, -1);
      expect(list.at(-1)?.hash).toBe(entry.hash);
      expect((await replica.keeper.check()).ok).toBe(false);
    },
  );

  auditTest(
    'a head carrying an older entry than the one it names is a finding, and that entry is not appended',
    async ({ replicas, auditReplica }) => {
      const { store, replica, told } = await loggedReplica(
        { replicas, auditReplica },
        'audit-head-foreign-entry',
        3,
      );
      const all = await store.readList<AuditEntry>(LIST, 0, -1);
      const head = await store.get<ChainHead>(HEAD);
      await store.set(HEAD, { ...head, entry: all[1] });
      await store.appendToList(LIST, all[1]);
      expect((await replica.keeper.check()).problems.map((p) => p.kind)).toContain('head-entry-foreign');

      await replica.log.append('sandbox', auditDraft(5));
      const after = await store.readList<AuditEntry>(LIST, 0, -1);
      expect(after.slice(4).map((e) => e.action)).toEqual([HEAD_UNVERIFIED, 'approved']);
      expect(after[4]?.note).toContain('head-entry-foreign');
      expect(told.map(([kind]) => kind)).toEqual(['head-entry-foreign']);
    },
  );
});

describe('entries before a cut marker', () => {
  auditTest('an entry without a hash before the marker is a break', async ({ replicas, auditReplica }) => {
    const { store, replica } = await loggedReplica({ replicas, auditReplica }, 'audit-before-marker', 4);
    expect(await replica.log.cut('sandbox', cutBefore(2), new Date(), () => true)).toBe(2);
    const entries = await replica.log.entries('sandbox');
    const head = await store.get<ChainHead>(HEAD);
    expect(verifyChain(entries, head).ok).toBe(true);
    const fake = { ...auditDraft(66), amount: '9999999.00', environment: 'sandbox' } as AuditEntry;
    const report = verifyChain([fake, ...entries], head);
    expect(report.ok).toBe(false);
    expect(report.broken?.kind).toBe('unchained');
    expect(report.broken?.index).toBe(0);
    const hashed = { ...fake, hash: entryHash(fake) };
    expect(verifyChain([hashed, ...entries], head).ok).toBe(false);
  });
});
