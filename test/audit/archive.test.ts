// The signed audit archive: segments written once across replicas sharing a store and a folder, each
// a new read-only folder that continues from the one before; written when due; refused from a folder
// the other replicas do not write to; and retention that removes only what a verified segment holds.
import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect } from 'vitest';
import { CLAIMS_DIR, ENTRIES_FILE, INCOMING_DIR, MANIFEST_FILE } from '../../src/audit/segments.js';
import { type AuditReplica, auditTest } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';
import { STORE_KINDS } from '../support/shared-stores.js';

const DAY = 86_400_000;

async function appendMany(replica: AuditReplica, from: number, count: number): Promise<void> {
  for (let n = from; n < from + count; n++) await replica.log.append('sandbox', auditDraft(n));
}

const segmentsIn = (folder: string) =>
  readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();

for (const kind of STORE_KINDS) {
  describe.skipIf(!kind.up)(`the audit archive on ${kind.name}`, () => {
    auditTest.override('storeKind', kind.name);

    auditTest(
      'two replicas archiving at once write each segment once',
      async ({ replicas, auditReplica }) => {
        const { a, b } = await replicas('audit-archive-once');
        const [one, two] = [auditReplica(a), auditReplica(b)];
        await appendMany(one, 0, 3);
        await appendMany(two, 3, 2);
        const first = await Promise.all([
          one.keeper.archiveNow('schedule'),
          two.keeper.archiveNow('schedule'),
        ]);
        expect(first.filter((o) => o.written)).toHaveLength(1);
        expect(first.find((o) => !o.written)).toMatchObject({ reason: 'nothing-new', through: 4 });

        await appendMany(two, 5, 3);
        const second = await Promise.all([
          two.keeper.archiveNow('shutdown'),
          one.keeper.archiveNow('shutdown'),
        ]);
        expect(second.filter((o) => o.written)).toHaveLength(1);

        const folder = one.keeper.archive?.folder ?? '';
        const report = one.keeper.archive?.read();
        expect(report?.problems).toEqual([]);
        expect(segmentsIn(folder).map((name) => name.slice(0, 21))).toEqual([
          '0000000000-0000000004',
          '0000000005-0000000007',
        ]);
        expect(report?.verifiedHead?.seq).toBe(7);
        expect((await one.keeper.check()).ok).toBe(true);
      },
    );
  });
}

describe('an archive segment', () => {
  auditTest(
    'is a new folder of read-only files that continues from the one before',
    async ({ oneReplica, auditReplica }) => {
      const a = await oneReplica('audit-archive-files');
      const replica = auditReplica(a);
      // An empty chain: nothing to write, and nothing wrong.
      expect(await replica.keeper.archiveNow('command by UAPPROVERA')).toEqual({
        written: false,
        reason: 'nothing-new',
      });
      await appendMany(replica, 0, 2);
      const first = await replica.keeper.archiveNow('command by UAPPROVERA');
      await appendMany(replica, 2, 1);
      const second = await replica.keeper.archiveNow('command by UAPPROVERA');
      expect(first).toMatchObject({ written: true, firstSeq: 0, lastSeq: 1, count: 2 });
      expect(second).toMatchObject({ written: true, firstSeq: 2, lastSeq: 2, count: 1 });
      const folder = replica.keeper.archive?.folder ?? '';
      const [older, newer] = segmentsIn(folder);
      // Segments hold payout payloads and purposes: the bot's user alone reads them, as its signing key.
      const mode = (path: string) => statSync(path).mode & 0o777;
      for (const name of [older, newer]) {
        expect(mode(join(folder, name ?? ''))).toBe(0o700);
        for (const file of [ENTRIES_FILE, MANIFEST_FILE]) {
          expect(mode(join(folder, name ?? '', file))).toBe(0o400);
        }
      }
      expect([folder, dirname(folder), join(folder, CLAIMS_DIR)].map(mode)).toEqual([0o700, 0o700, 0o700]);
      const manifest = (name: string | undefined) =>
        JSON.parse(readFileSync(join(folder, name ?? '', MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
      expect(manifest(older)).toMatchObject({
        first: true,
        firstSeq: 0,
        lastSeq: 1,
        reason: 'command by UAPPROVERA',
      });
      expect(manifest(newer)).toMatchObject({ first: false, previousHead: manifest(older).head });
      expect(manifest(newer).key).toBe(replica.seal.signer.publicKey);
      // Nothing new: nothing written.
      expect(await replica.keeper.archiveNow('shutdown')).toMatchObject({
        written: false,
        reason: 'nothing-new',
        through: 2,
      });
      expect(segmentsIn(folder)).toHaveLength(2);
    },
  );

  auditTest(
    'is written when due: the last one, or the oldest entry not archived, is old enough',
    async ({ oneReplica, auditReplica }) => {
      const a = await oneReplica('audit-archive-due');
      let now = new Date('2026-11-01T12:00:00.000Z');
      const replica = auditReplica(a, { archiveEveryMs: DAY, now: () => now });
      await appendMany(replica, 0, 2); // written at 09:00 and 09:01 that day
      await replica.keeper.sweep();
      expect(replica.keeper.archive?.read().segments).toBe(0);
      now = new Date('2026-11-02T09:05:00.000Z');
      await replica.keeper.sweep();
      expect(replica.keeper.archive?.read().segments).toBe(1);
      await appendMany(replica, 2, 1);
      now = new Date('2026-11-03T09:00:00.000Z');
      await replica.keeper.sweep(); // the last segment is a few minutes short of a day old
      expect(replica.keeper.archive?.read().segments).toBe(1);
      now = new Date('2026-11-03T09:05:00.000Z');
      await replica.keeper.sweep();
      expect(replica.keeper.archive?.read()).toMatchObject({ segments: 2, lastSeq: 2, problems: [] });
    },
  );

  auditTest(
    'is refused from a folder that lacks the segment the store says was written',
    async ({ oneReplica, auditReplica, auditDir }) => {
      const a = await oneReplica('audit-archive-folder');
      const one = auditReplica(a);
      await appendMany(one, 0, 2);
      expect(await one.keeper.archiveNow('schedule')).toMatchObject({ written: true });
      await appendMany(one, 2, 1);
      const elsewhere = auditReplica(a, { archiveDir: join(auditDir, 'elsewhere') });
      const outcome = await elsewhere.keeper.archiveNow('schedule');
      expect(outcome).toMatchObject({ written: false, reason: 'refused' });
      expect(outcome.written === false && outcome.reason === 'refused' && outcome.why).toContain(
        'every replica must write to the same folder (CNGN_AUDIT_ARCHIVE)',
      );
    },
  );
});

describe('an archive write a kill interrupted', () => {
  auditTest('leaves nothing in .incoming once the bot starts again', async ({ oneReplica, auditReplica }) => {
    const a = await oneReplica('audit-archive-incoming');
    const before = auditReplica(a);
    await appendMany(before, 0, 2);
    await before.keeper.archiveNow('schedule');
    const folder = before.keeper.archive?.folder ?? '';
    // What a writer killed between its two files leaves: a staging folder with one read-only file.
    const staging = join(folder, INCOMING_DIR, randomUUID());
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, ENTRIES_FILE), '{"seq":2}\n', { mode: 0o444 });

    const after = auditReplica(a);
    await after.keeper.start();
    expect(existsSync(join(folder, INCOMING_DIR))).toBe(false);
    expect(segmentsIn(folder)).toHaveLength(1);
    expect((await after.keeper.check()).ok).toBe(true);
  });
});

describe('the audit check against the store’s record of the archive', () => {
  auditTest(
    'notices the newest segment deleted, after a restart, and names where the folder ends',
    async ({ oneReplica, auditReplica, signer }) => {
      const a = await oneReplica('audit-archive-newest-deleted');
      const before = auditReplica(a);
      await appendMany(before, 0, 2);
      await before.keeper.archiveNow('schedule');
      await appendMany(before, 2, 2);
      await before.keeper.archiveNow('schedule');
      const folder = before.keeper.archive?.folder ?? '';
      const [first, second] = segmentsIn(folder);
      expect((await before.keeper.check()).archive?.lastSegment).toBe(second);
      rmSync(join(folder, second ?? ''), { recursive: true, force: true });

      const after = auditReplica(a, { signer }); // the restart: a fresh keeper on the same store
      const check = await after.keeper.check();
      expect(check.ok).toBe(false);
      expect(check.archive?.lastSegment).toBe(first);
      expect(check.problems).toEqual([
        {
          kind: 'archive-behind',
          text: expect.stringContaining(
            `the store records segment ${second} (to seq 3) as written`,
          ) as string,
        },
      ]);
      expect(check.problems[0]?.text).toContain(`but the archive ends at segment ${first} (seq 1)`);
      expect(after.keeper.health()).toMatchObject({ ok: false });

      // Every segment gone: said too.
      rmSync(join(folder, first ?? ''), { recursive: true, force: true });
      expect((await after.keeper.check()).problems.map((p) => p.kind)).toEqual(['archive-behind']);
    },
  );
});

describe('audit retention', () => {
  const old = (n: number) => ({ ...auditDraft(n), at: new Date(Date.UTC(2026, 0, 1, 9, n)).toISOString() });

  auditTest(
    'removes only entries a verified segment holds, and records the cut',
    async ({ oneReplica, auditReplica }) => {
      const a = await oneReplica('audit-retention');
      let now = new Date('2026-06-01T00:00:00.000Z');
      const replica = auditReplica(a, { retentionMs: 30 * DAY, now: () => now });
      for (let n = 0; n < 3; n++) await replica.log.append('sandbox', old(n));
      // Old enough, but in no segment: kept.
      expect(await replica.keeper.retention()).toBe(0);
      await replica.keeper.archiveNow('schedule'); // writes seq 0..2, then retention removes them
      expect((await replica.log.entries('sandbox')).map((e) => [e.action, e.seq])).toEqual([
        ['cut', undefined],
        ['cut', 3],
      ]);
      const check = await replica.keeper.check();
      expect(check).toMatchObject({ ok: true, chain: { cut: { seq: 2, count: 3 } } });

      // A segment that no longer verifies counts for nothing.
      for (let n = 3; n < 5; n++) await replica.log.append('sandbox', old(n));
      expect(await replica.keeper.archiveNow('schedule')).toMatchObject({
        written: true,
        firstSeq: 3,
        lastSeq: 5,
      });
      expect(replica.keeper.archive?.read().verified.size).toBe(6);
      const folder = replica.keeper.archive?.folder ?? '';
      const damaged = join(folder, segmentsIn(folder)[1] ?? '', ENTRIES_FILE);
      chmodSync(damaged, 0o644);
      writeFileSync(damaged, readFileSync(damaged, 'utf8').replace('1003.00', '1.00'));
      const report = replica.keeper.archive?.read();
      expect(report?.verified.size).toBe(3);
      expect(report?.problems.map((p) => p.text)).toContain(
        `${ENTRIES_FILE} is not the file its manifest signed (its SHA-256 differs): it was changed`,
      );
      now = new Date('2026-09-01T00:00:00.000Z'); // everything is old now
      expect(await replica.keeper.retention()).toBe(0);
      expect((await replica.log.entries('sandbox')).map((e) => e.seq)).toEqual([undefined, 3, 4, 5]);
    },
  );
});

describe('the audit check against the retention cut', () => {
  auditTest(
    'notices entries removed by retention that no verified segment holds',
    async ({ oneReplica, auditReplica }) => {
      const a = await oneReplica('audit-cut-uncovered');
      const now = new Date('2026-06-01T00:00:00.000Z');
      const replica = auditReplica(a, { retentionMs: 30 * DAY, now: () => now });
      for (let n = 0; n < 3; n++) {
        await replica.log.append('sandbox', {
          ...auditDraft(n),
          at: new Date(Date.UTC(2026, 0, 1, 9, n)).toISOString(),
        });
      }
      await replica.keeper.archiveNow('schedule'); // writes seq 0..2, then retention removes them
      expect(await replica.keeper.check()).toMatchObject({ ok: true, chain: { cut: { seq: 2 } } });
      // The segment's entries damaged: it verifies no more, and the store no longer holds seq 0..2.
      const folder = replica.keeper.archive?.folder ?? '';
      const damaged = join(folder, segmentsIn(folder)[0] ?? '', ENTRIES_FILE);
      chmodSync(damaged, 0o600);
      writeFileSync(damaged, readFileSync(damaged, 'utf8').replace('1001.00', '1.00'));
      const check = await replica.keeper.check();
      expect(check.ok).toBe(false);
      expect(check.problems.map((p) => p.kind)).toEqual(['archive-invalid', 'archive-cut-unheld']);
      expect(check.problems[1]?.text).toBe(
        'retention removed the entries up to seq 2 from the store, but no verified segment of the archive holds them: they are nowhere',
      );
    },
  );
});
