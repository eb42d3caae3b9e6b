// The audit log's hash chain: deterministic hashes, appends that never fork across replicas, entries of
// an older version sealed, and verification that names the first edited, deleted or reordered entry.
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/approvals/types.js';
import { canonicalJson, entryHash, GENESIS, verifyChain } from '../../src/audit/chain.js';
import { AuditLog, auditListKey } from '../../src/audit/log.js';
import { clearStore, createStore, type Store } from '../../src/store/index.js';
import { auditDraft } from '../support/engine.js';
import { test as base } from '../support/fixtures.js';
import { REDIS_URL, redisAvailable, testPrefix } from '../support/redis.js';

const hasRedis = await redisAvailable();
const LIST = auditListKey('sandbox');
// The memory store keeps a list as one key per item plus its length: a test can reach under the log.
const itemKey = (index: number) => `list:${LIST}#${index}`;
const lengthKey = `list:${LIST}#length`;

async function readAll(store: Store): Promise<AuditEntry[]> {
  return store.readList<AuditEntry>(LIST, 0, -1);
}

/** Rewrite the stored list as `entries` (a tamperer with store access). */
async function overwrite(store: Store, entries: AuditEntry[]): Promise<void> {
  for (const [index, entry] of entries.entries()) await store.set(itemKey(index), entry);
  await store.set(lengthKey, entries.length);
}

/** `store`, a memory store of the test's own; `log`, the audit log on it, holding `seeded` entries. */
const test = base
  .extend('store', async ({ defer }) => {
    const store = await createStore('memory://');
    defer(() => store.close());
    return store;
  })
  .extend('seeded', 0)
  .extend('log', async ({ store, seeded }) => {
    const log = new AuditLog(store);
    for (let n = 0; n < seeded; n++) await log.append('sandbox', auditDraft(n));
    return log;
  });

describe('canonical serialisation', () => {
  it('is the same text whatever the key order, and leaves out undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, 'x'], c: null }, e: undefined })).toBe(
      '{"a":{"c":null,"d":[1,"x"]},"b":1}',
    );
    expect(canonicalJson({ a: { c: null, d: [1, 'x'] }, b: 1 })).toBe(
      canonicalJson({ b: 1, a: { d: [1, 'x'], c: null } }),
    );
  });
});

describe('the audit chain', () => {
  test.override('seeded', 5);

  test('links each entry to the one before it, from the genesis value', async ({ store, log }) => {
    const entries = await readAll(store);
    expect(entries.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(entries[0]?.prev).toBe(GENESIS);
    for (let i = 1; i < entries.length; i++) expect(entries[i]?.prev).toBe(entries[i - 1]?.hash);
    for (const entry of entries) expect(entry.hash).toBe(entryHash(entry));
    expect(await log.verify('sandbox')).toMatchObject({ ok: true, chained: 5, unchained: 0 });
  });

  test('names an edited entry', async ({ store, log }) => {
    const entries = await readAll(store);
    await store.set(itemKey(2), { ...entries[2], amount: '9999999.00' });
    const report = await log.verify('sandbox');
    expect(report.ok).toBe(false);
    expect(report.broken).toMatchObject({ kind: 'edited', index: 2 });
    expect(report.broken?.entry?.requestId).toBe('AR-0000000002');
  });

  test('names an entry edited and given a fresh hash: the next one no longer follows it', async ({
    store,
    log,
  }) => {
    const entries = await readAll(store);
    const forged = { ...entries[2], amount: '9999999.00' } as AuditEntry;
    await store.set(itemKey(2), { ...forged, hash: entryHash(forged) });
    expect((await log.verify('sandbox')).broken).toMatchObject({ kind: 'rewritten', index: 3 });
  });

  test('names where an entry was deleted', async ({ store, log }) => {
    const entries = await readAll(store);
    await overwrite(store, [entries[0], entries[1], entries[3], entries[4]] as AuditEntry[]);
    const report = await log.verify('sandbox');
    expect(report.broken).toMatchObject({ kind: 'deleted', index: 2, missing: 1 });
    expect(report.broken?.entry?.seq).toBe(3);
  });

  test('notices the newest entries deleted, from the head record', async ({ store, log }) => {
    await store.set(lengthKey, 3);
    expect((await log.verify('sandbox')).broken).toMatchObject({ kind: 'deleted', missing: 2 });
  });

  test('names reordered entries', async ({ store, log }) => {
    const entries = await readAll(store);
    await overwrite(store, [entries[0], entries[1], entries[3], entries[2], entries[4]] as AuditEntry[]);
    const report = await log.verify('sandbox');
    expect(report.broken).toMatchObject({ kind: 'reordered', index: 2 });
    expect(report.broken?.entry?.seq).toBe(3);
  });

  test('reads the newest entries as asked, further back for a copy it leaves out', async ({ store, log }) => {
    const entries = await readAll(store);
    // An appender past a lapsed lock put entry 2 in again after 3 and 4 were chained on.
    await store.appendToList(LIST, entries[2]);
    expect((await log.latest('sandbox', 4)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await log.latest('sandbox', 10)).map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  test('seals entries of an older version: the chain starts after them, and editing them is noticed', async () => {
    const fresh = await createStore('memory://');
    const older = [auditDraft(0), auditDraft(1)] as AuditEntry[];
    for (const entry of older) await fresh.appendToList(LIST, entry);
    const upgraded = new AuditLog(fresh);
    await upgraded.append('sandbox', auditDraft(2));
    await upgraded.append('sandbox', auditDraft(3));
    expect(await upgraded.verify('sandbox')).toMatchObject({ ok: true, unchained: 2, chained: 2 });
    await fresh.set(itemKey(0), { ...older[0], actor: 'UMALLORY' });
    expect((await upgraded.verify('sandbox')).broken).toMatchObject({ kind: 'legacy-edited', index: 2 });
    await fresh.close();
  });

  test('does not fork when many appends race', async ({ store, log }) => {
    const other = new AuditLog(store);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? log : other).append('sandbox', auditDraft(10 + i))),
    );
    const entries = await readAll(store);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 45 }, (_, i) => i));
    expect(verifyChain(entries).ok).toBe(true);
  });
});

describe.skipIf(!hasRedis)('the audit chain on Redis', () => {
  it('does not fork when two replicas append at once', async () => {
    const prefix = testPrefix('audit-chain');
    const a = await createStore(REDIS_URL, { prefix });
    const b = await createStore(REDIS_URL, { prefix });
    try {
      const logs = [new AuditLog(a), new AuditLog(b)];
      await Promise.all(
        Array.from(
          { length: 40 },
          (_, i) => logs[i % 2]?.append('sandbox', auditDraft(i)) as Promise<AuditEntry>,
        ),
      );
      const report = await logs[0]?.verify('sandbox');
      expect(report).toMatchObject({ ok: true, chained: 40 });
    } finally {
      await clearStore(a);
      await a.close();
      await b.close();
    }
  });
});

describe('audit retention', () => {
  const old = (n: number) => ({ ...auditDraft(n), at: new Date(Date.UTC(2026, 0, 1, 9, n)).toISOString() });
  /** What a verified archive segment holding seq 0 to `last` says of an entry. */
  const archivedThrough = (last: number) => (entry: AuditEntry) =>
    entry.seq !== undefined && entry.seq <= last;

  test('keeps everything that no archive segment holds, however old', async ({ log }) => {
    for (let n = 0; n < 4; n++) await log.append('sandbox', old(n));
    expect(await log.cut('sandbox', new Date('2026-06-01'), new Date('2026-06-01'), () => false)).toBe(0);
    expect(await log.entries('sandbox')).toHaveLength(4);
  });

  test('removes only old archived entries, starts the log with the cut, and records it in the chain', async ({
    log,
  }) => {
    for (let n = 0; n < 4; n++) await log.append('sandbox', old(n));
    await log.append('sandbox', { ...old(4), at: '2026-02-01T09:00:00.000Z', action: 'exported' });
    await log.append('sandbox', auditDraft(9));
    const removed = await log.cut(
      'sandbox',
      new Date('2026-06-01'),
      new Date('2026-06-01'),
      archivedThrough(2),
    );
    expect(removed).toBe(3);
    const entries = await log.entries('sandbox');
    expect(entries.map((e) => [e.action, e.seq])).toEqual([
      ['cut', undefined],
      ['approved', 3],
      ['exported', 4],
      ['approved', 5],
      ['cut', 6],
    ]);
    expect(entries[0]?.cut).toMatchObject({ seq: 2, count: 3 });
    const report = await log.verify('sandbox');
    expect(report).toMatchObject({ ok: true, cut: { seq: 2, count: 3 } });
    await log.append('sandbox', auditDraft(10));
    expect((await log.verify('sandbox')).ok).toBe(true);
  });

  test('leaves out an older entry listed again, so the chain after the cut verifies', async ({
    store,
    log,
  }) => {
    for (let n = 0; n < 4; n++) await log.append('sandbox', old(n));
    await store.appendToList(LIST, (await log.entries('sandbox'))[1]);
    await log.append('sandbox', auditDraft(9));
    const at = new Date('2026-06-01');
    expect(await log.cut('sandbox', at, at, archivedThrough(2))).toBe(3);
    expect((await log.entries('sandbox')).map((e) => e.seq)).toEqual([undefined, 3, 4, 5]);
    expect((await log.verify('sandbox')).ok).toBe(true);
  });

  test('notices old entries removed by hand behind a forged cut marker', async ({ store, log }) => {
    for (let n = 0; n < 4; n++) await log.append('sandbox', old(n));
    const entries = await log.entries('sandbox');
    const cut = { seq: 1, hash: entries[1]?.hash ?? '', count: 2 };
    const fake = {
      at: '2026-06-01T00:00:00.000Z',
      kind: 'audit' as const,
      action: 'cut',
      environment: 'sandbox' as const,
      cut,
    };
    await overwrite(store, [{ ...fake, hash: entryHash(fake) }, entries[2], entries[3]] as AuditEntry[]);
    expect((await log.verify('sandbox')).broken).toMatchObject({ kind: 'unrecorded-cut', index: 0 });
  });

  test('still names an entry edited after a cut', async ({ store, log }) => {
    for (let n = 0; n < 3; n++) await log.append('sandbox', old(n));
    await log.append('sandbox', { ...old(3), action: 'exported' });
    expect(await log.cut('sandbox', new Date('2026-06-01'), new Date('2026-06-01'), archivedThrough(0))).toBe(
      1,
    );
    const entries = await log.entries('sandbox');
    const list = `${LIST}:g1`;
    await store.set(`list:${list}#1`, { ...entries[1], actor: 'UMALLORY' });
    expect((await log.verify('sandbox')).broken).toMatchObject({ kind: 'edited', index: 1 });
  });
});
