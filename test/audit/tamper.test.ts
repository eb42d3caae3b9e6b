// Someone with write access to the store but not to the audit signing key changes the audit log. Each
// of the adversarial run's three cases is a break, where a plain hash chain said "intact": (a) an amount
// edited and every later hash and the head recomputed, (b) the newest entry deleted and the head rolled
// back to an earlier (genuinely signed) one, (c) every entry and the head deleted beside requests.
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import type { ChainHead } from '../../src/audit/chain.js';
import { entryHash } from '../../src/audit/chain.js';
import { AuditKeyMismatch } from '../../src/audit/keeper.js';
import { AuditLog, auditHeadKey, auditListKey, HEAD_UNVERIFIED } from '../../src/audit/log.js';
import type { Store } from '../../src/store/index.js';
import { type AuditReplica, auditTest, newSigner } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';

const LIST = auditListKey('sandbox');
const HEAD = auditHeadKey('sandbox');
// The memory and SQLite stores keep a list as one key per item plus its length: the tamperer's view.
const itemKey = (index: number) => `list:${LIST}#${index}`;
const lengthKey = `list:${LIST}#length`;

async function appendMany(replica: AuditReplica, count: number): Promise<void> {
  for (let n = 0; n < count; n++) await replica.log.append('sandbox', auditDraft(n));
}

async function overwrite(store: Store, entries: AuditEntry[]): Promise<void> {
  for (const [index, entry] of entries.entries()) await store.set(itemKey(index), entry);
  await store.set(lengthKey, entries.length);
}

describe('tampering with the audit log in the store', () => {
  auditTest(
    '(a) an amount edited, every later hash and the head recomputed: the head no longer verifies',
    async ({ replicas, auditReplica }) => {
      const { a: store } = await replicas('audit-tamper-edit');
      const replica = auditReplica(store);
      await appendMany(replica, 6);
      expect((await replica.keeper.check()).ok).toBe(true);

      const entries = await store.readList<AuditEntry>(LIST, 0, -1);
      let prev = entries[1]?.hash;
      const forged = entries.map((entry, i) => {
        if (i < 2) return entry;
        const changed: AuditEntry = { ...entry, prev, ...(i === 2 ? { amount: '9999999.00' } : {}) };
        const rehashed = { ...changed, hash: entryHash(changed) };
        prev = rehashed.hash;
        return rehashed;
      });
      await overwrite(store, forged);
      const signed = await store.get<ChainHead>(HEAD);
      const last = forged.at(-1) as AuditEntry;
      await store.set<ChainHead>(HEAD, {
        seq: last.seq ?? 0,
        hash: last.hash ?? '',
        signature: signed?.signature,
      });

      const check = await replica.keeper.check();
      expect(check.chain.ok).toBe(true); // every link holds: the plain chain said "intact" here
      expect(check.ok).toBe(false);
      expect(check.problems.map((p) => p.kind)).toEqual(['head-forged']);
      // Without the signature at all, it is no better.
      await store.set<ChainHead>(HEAD, { seq: last.seq ?? 0, hash: last.hash ?? '' });
      expect((await replica.keeper.check()).problems.map((p) => p.kind)).toEqual(['head-unsigned']);
    },
  );

  auditTest(
    'an append after tampering records it in the chain before linking to it, and tells it once',
    async ({ replicas, auditReplica }) => {
      const { a: store } = await replicas('audit-tamper-append');
      const replica = auditReplica(store);
      const told: AuditEntry[][] = [];
      replica.keeper.onAlarm(async (_check, incidents) => void told.push(incidents));
      await appendMany(replica, 3);
      const entries = await store.readList<AuditEntry>(LIST, 0, -1);
      const edited = { ...(entries[2] as AuditEntry), amount: '1.00' };
      await overwrite(store, [
        entries[0],
        entries[1],
        { ...edited, hash: entryHash(edited) },
      ] as AuditEntry[]);
      await store.set<ChainHead>(HEAD, { seq: 2, hash: entryHash(edited) });

      await replica.log.append('sandbox', auditDraft(7));
      await replica.keeper.idle();
      const after = await store.readList<AuditEntry>(LIST, 0, -1);
      expect(after.slice(3).map((e) => [e.seq, e.action])).toEqual([
        [3, HEAD_UNVERIFIED],
        [4, 'approved'],
      ]);
      expect(after[3]?.note).toContain('head-unsigned: the head at seq 2 carries no signature');
      expect(after[3]?.subject).toBe(`seq 2 hash ${entryHash(edited)}`);
      const check = await replica.keeper.check();
      expect(check.incidents.map((e) => e.seq)).toEqual([3]);
      expect(told.map((incidents) => incidents.map((e) => e.seq))).toEqual([[3]]);
    },
  );

  auditTest(
    '(b) the newest entry deleted and the head rolled back: behind the mark, and behind the archive',
    async ({ replicas, auditReplica, auditDir }) => {
      const { a: store } = await replicas('audit-tamper-rollback');
      const replica = auditReplica(store);
      await appendMany(replica, 5);
      const earlier = await store.get<ChainHead>(HEAD); // genuinely signed, at seq 4
      await replica.log.append('sandbox', auditDraft(5));
      await replica.keeper.archiveNow('schedule');

      await store.set(lengthKey, 5);
      await store.set(HEAD, earlier);
      const check = await replica.keeper.check();
      expect(check.chain.ok).toBe(true);
      expect(check.problems.map((p) => p.kind)).toEqual(['head-rolled-back', 'archive-ahead']);
      expect(check.problems[0]?.text).toContain('the head is at seq 4, but this bot signed or checked seq 5');
      // A replica that never saw seq 5 still has the archive to compare with.
      const fresh = auditReplica(store, { marks: join(auditDir, 'fresh-heads.json') });
      expect((await fresh.keeper.check()).problems.map((p) => p.kind)).toEqual(['archive-ahead']);
    },
  );

  auditTest(
    '(c) every entry and the head deleted beside requests: a break, not "0 entries checked"',
    async ({ replicas, auditReplica, auditDir }) => {
      const { a: store } = await replicas('audit-tamper-empty');
      const replica = auditReplica(store);
      await appendMany(replica, 4);
      await store.set(lengthKey, 0);
      await store.delete(HEAD);
      const check = await replica.keeper.check();
      expect(check).toMatchObject({ ok: false, chain: { ok: true, total: 0 } });
      expect(check.problems.map((p) => p.kind)).toEqual(['emptied']);
      expect(check.problems[0]?.text).toContain('this bot signed or checked seq 3');
      // Another process, which kept no mark: the open requests filed with entries say it.
      const fresh = auditReplica(store, {
        marks: join(auditDir, 'fresh-heads.json'),
        openRequests: async () => [{ id: 'AR-1' }, { id: 'AR-2' }],
      });
      const seen = await fresh.keeper.check();
      expect(seen.problems.map((p) => p.text)).toEqual([
        'the audit log is empty and has no head, but 2 open requests were filed, each with an entry: its entries were deleted',
      ]);
      // With nothing to say a chain existed, an empty log is just new.
      const blank = auditReplica(store, { marks: join(auditDir, 'blank-heads.json') });
      expect((await blank.keeper.check()).ok).toBe(true);
    },
  );

  auditTest(
    'the head is signed, but the entry at its seq was rewritten',
    async ({ replicas, auditReplica }) => {
      const { a: store } = await replicas('audit-tamper-mismatch');
      const replica = auditReplica(store);
      await appendMany(replica, 3);
      const entries = await store.readList<AuditEntry>(LIST, 0, -1);
      const edited = { ...(entries[2] as AuditEntry), actor: 'UMALLORY' };
      await store.set(itemKey(2), { ...edited, hash: entryHash(edited) });
      const check = await replica.keeper.check();
      expect(check.chain.ok).toBe(true);
      expect(check.problems.map((p) => p.kind)).toEqual(['head-mismatch']);
    },
  );
});

describe('the daily check', () => {
  auditTest('tells a break found since the last check, once', async ({ replicas, auditReplica }) => {
    const { a: store } = await replicas('audit-daily');
    let now = new Date('2026-11-02T08:00:00.000Z');
    const replica = auditReplica(store, { now: () => now });
    const told: string[][] = [];
    replica.keeper.onAlarm(async (check) => void told.push(check.problems.map((p) => p.kind)));
    await appendMany(replica, 3);
    await replica.keeper.start();
    await store.delete(HEAD);
    now = new Date('2026-11-03T07:59:00.000Z');
    await replica.keeper.daily(); // not a day since the check at start
    expect(told).toEqual([]);
    now = new Date('2026-11-03T08:00:00.000Z');
    await replica.keeper.daily();
    now = new Date('2026-11-04T08:00:00.000Z');
    await replica.keeper.daily(); // the same break: not told again
    expect(told).toEqual([['head-missing']]);
    expect(replica.keeper.health()).toMatchObject({ checked: true, ok: false, entries: 3 });
  });
});

describe('the signing key', () => {
  auditTest(
    'signs the head of a chain kept before there was a key, once, at the first start',
    async ({ replicas, auditReplica }) => {
      const { a: store } = await replicas('audit-key-adopt');
      const before = new AuditLog(store);
      for (let n = 0; n < 3; n++) await before.append('sandbox', auditDraft(n));
      expect((await store.get<ChainHead>(HEAD))?.signature).toBeUndefined();
      const replica = auditReplica(store);
      await replica.keeper.start();
      expect((await store.get<ChainHead>(HEAD))?.signature?.key).toBe(replica.seal.signer.publicKey);
      expect(await replica.keeper.check()).toMatchObject({ ok: true, problems: [] });
    },
  );

  auditTest(
    'refuses to start a replica whose key is not the one the store is signed with',
    async ({ replicas, auditReplica, auditDir }) => {
      const { a, b } = await replicas('audit-key-mismatch');
      await auditReplica(a).keeper.start();
      const other = auditReplica(b, { signer: newSigner('other key'), marks: join(auditDir, 'other.json') });
      await expect(other.keeper.start()).rejects.toThrow(AuditKeyMismatch);
      await expect(other.keeper.start()).rejects.toThrow('Every replica must sign with the same key');
    },
  );
});
