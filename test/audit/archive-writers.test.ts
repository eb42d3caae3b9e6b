// Two archive writers on one folder whose lock lapsed between them (a Redis failover, a writer stalled
// past the lock's lease): the first seq of each segment is claimed in the folder itself, so the one that
// read the folder before the other wrote stops, and the next round continues from the folder.
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CLAIM_ABANDONED_MS } from '../../src/audit/archive.js';
import { CLAIMS_DIR, ENTRIES_FILE } from '../../src/audit/segments.js';
import { createStore } from '../../src/store/index.js';
import { auditTest as test } from '../support/audit-archive.js';
import { appendMany, archiveIn, archiveOn, chainOf, lapsed, loggedReplicas, NOW } from './archive-support.js';

test('a writer whose view of the folder went stale while another wrote stops, and the archive goes on', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, b, log } = await loggedReplicas(replicas, 'audit-archive-stale-writer', 2);
  const [one, two] = [archiveOn(a, { auditDir, signer }), archiveOn(lapsed(b), { auditDir, signer })];
  expect(await one.write('schedule', chainOf(log))).toMatchObject({ written: true, lastSeq: 1 });
  await appendMany(log, 2, 2);

  // `one` has read the folder (it ends at seq 1) when `two` writes seq 2..3; two more entries follow.
  const stale = await one.write('schedule', async () => {
    expect(await two.write('schedule', chainOf(log))).toMatchObject({
      written: true,
      firstSeq: 2,
      lastSeq: 3,
    });
    await appendMany(log, 4, 2);
    return chainOf(log)();
  });
  expect(stale).toMatchObject({ written: false, reason: 'taken' });

  const report = one.read();
  expect(report.problems).toEqual([]);
  expect(report.verifiedHead?.seq).toBe(3);
  // The next round continues from the folder.
  expect(await one.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 4, lastSeq: 5 });
  const names = readdirSync(one.folder)
    .filter((name) => !name.startsWith('.'))
    .sort();
  expect(names.map((name) => name.slice(0, 21))).toEqual([
    '0000000000-0000000001',
    '0000000002-0000000003',
    '0000000004-0000000005',
  ]);
  expect(one.read()).toMatchObject({ problems: [], verifiedHead: { seq: 5 } });
  expect(await one.record()).toMatchObject({ lastSeq: 5 });
});

test("another writer's live claim survives a start-up, and is taken over only once it is long abandoned", async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-unfinished-claim', 2);
  let now = NOW;
  const archive = archiveOn(a, { auditDir, signer }, { now: () => now });
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true, lastSeq: 1 });
  await appendMany(log, 2, 1);
  // A writer whose lock lapsed claimed seq 2 a minute ago and has not renamed its segment yet.
  const claim = join(archive.folder, CLAIMS_DIR, '0000000002');
  mkdirSync(claim);
  const at = new Date(NOW.getTime() - 60_000).toISOString();
  writeFileSync(join(claim, 'owner.json'), JSON.stringify({ owner: 'replica-a', at }));
  expect(await archive.clearIncoming()).toBe(false);
  expect(readdirSync(join(archive.folder, CLAIMS_DIR)).sort()).toEqual(['0000000000', '0000000002']);
  const refused = await archive.write('schedule', chainOf(log));
  expect(refused).toMatchObject({ written: false, reason: 'refused' });
  expect(refused.written === false && refused.reason === 'refused' && refused.why).toContain(
    'seq 2 is claimed',
  );
  // Long after: its writer is gone, and the claim is taken over.
  now = new Date(NOW.getTime() + CLAIM_ABANDONED_MS);
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 2 });
  expect(archive.read()).toMatchObject({ problems: [], verifiedHead: { seq: 2 } });
  expect(readdirSync(join(archive.folder, CLAIMS_DIR, '0000000000'))).toEqual(['owner.json']);
});

test('a claim without its owner file is dated by its folder', async ({ replicas, auditDir, signer }) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-claim-no-owner', 1);
  let now = NOW;
  const archive = archiveOn(a, { auditDir, signer }, { now: () => now });
  const claim = join(archive.folder, CLAIMS_DIR, '0000000000');
  mkdirSync(claim, { recursive: true });
  utimesSync(claim, NOW, NOW);
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: false, reason: 'refused' });
  now = new Date(NOW.getTime() + CLAIM_ABANDONED_MS);
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 0 });
});

test('a segment checked once is still caught when its file changes afterwards, at the same size', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-checked-once', 2);
  const archive = archiveOn(a, { auditDir, signer });
  await archive.write('schedule', chainOf(log));
  const first = archive.read();
  expect(archive.read()).toEqual(first);
  const [name] = readdirSync(archive.folder).filter((n) => !n.startsWith('.'));
  const file = join(archive.folder, name ?? '', ENTRIES_FILE);
  chmodSync(file, 0o600);
  writeFileSync(file, readFileSync(file, 'utf8').replace('1001.00', '1009.00'));
  expect(archive.read().problems.map((p) => p.text)).toContain(
    `${ENTRIES_FILE} is not the file its manifest signed (its SHA-256 differs): it was changed`,
  );
  expect(archive.read().verified.size).toBe(0);
});

test('a takeover that fails before its claim is made again leaves no claim: the next writer claims seq as usual', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-takeover-dies', 1);
  const dir = join(auditDir, 'archive');
  // A writer claimed seq 0 long ago and is gone.
  const claims = join(dir, 'sandbox', CLAIMS_DIR);
  mkdirSync(join(claims, '0000000000'), { recursive: true });
  const at = new Date(NOW.getTime() - CLAIM_ABANDONED_MS).toISOString();
  writeFileSync(join(claims, '0000000000', 'owner.json'), JSON.stringify({ owner: 'replica-gone', at }));
  // The writer taking it over fails as it makes the claim its own (its third look at the clock: the
  // round's time, the claim's age, then its owner file's time).
  let calls = 0;
  const failing = archiveIn(dir, signer, a, {
    now: () => {
      calls += 1;
      if (calls === 3) throw new Error('the disk failed');
      return NOW;
    },
  });
  await expect(failing.write('schedule', chainOf(log))).rejects.toThrow('the disk failed');
  const next = archiveIn(dir, signer, a);
  expect(await next.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 0 });
  // A takeover stopped between moving the claim away and claiming afresh leaves the claim to the next.
  await appendMany(log, 1, 1);
  mkdirSync(join(claims, '.0000000001-abandoned-x'));
  writeFileSync(join(claims, '.0000000001-abandoned-x', 'owner.json'), JSON.stringify({ owner: 'gone', at }));
  expect(await next.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 1 });
  expect(next.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
});

test('a writer stalled past the takeover of its claim writes nothing when it resumes: one segment per seq', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, b, log } = await loggedReplicas(replicas, 'audit-archive-stalled-writer', 2);
  const dir = join(auditDir, 'archive');
  const later = archiveIn(dir, signer, lapsed(b), {
    now: () => new Date(NOW.getTime() + CLAIM_ABANDONED_MS),
  });
  let overtaken: unknown;
  // The first writer stalls with its segment staged, past the claim's abandonment: the other takes over.
  const stalled = archiveIn(dir, signer, a, {
    now: () => NOW,
    staged: async () => {
      overtaken = await later.write('schedule', chainOf(log));
    },
  });
  await expect(stalled.write('schedule', chainOf(log))).rejects.toThrow('was taken over');
  expect(overtaken).toMatchObject({ written: true, firstSeq: 0, lastSeq: 1 });
  const names = readdirSync(stalled.folder).filter((name) => !name.startsWith('.'));
  expect(names.map((name) => name.slice(0, 21))).toEqual(['0000000000-0000000001']);
  expect(stalled.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
  // The claim is the one that wrote; the abandoned one's folder is gone.
  expect(readdirSync(join(stalled.folder, CLAIMS_DIR))).toEqual(['0000000000']);
});

test('a takeover that finds the stalled writer’s segment published just after it looked writes nothing', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { b, log } = await loggedReplicas(replicas, 'audit-archive-published-meanwhile', 2);
  // Elsewhere, the segment the stalled writer is about to publish (the same chain, the same signer; a
  // store of its own, so this one's record of the last segment is untouched).
  const aside = await createStore('memory://');
  const elsewhere = archiveIn(join(auditDir, 'elsewhere'), signer, aside);
  expect(await elsewhere.write('schedule', chainOf(log))).toMatchObject({ written: true, lastSeq: 1 });
  await aside.close();
  const [segment] = readdirSync(elsewhere.folder).filter((name) => !name.startsWith('.'));
  if (!segment) throw new Error('no segment written');
  // Its claim of seq 0, made long ago (no segment behind it yet): abandoned by the rule.
  const dir = join(auditDir, 'archive');
  const claim = join(dir, 'sandbox', CLAIMS_DIR, '0000000000');
  mkdirSync(claim, { recursive: true });
  writeFileSync(
    join(claim, 'owner.json'),
    `${JSON.stringify({ owner: 'stalled', at: NOW.toISOString() })}\n`,
  );
  let looked = 0;
  const later = archiveIn(dir, signer, lapsed(b), {
    now: () => new Date(NOW.getTime() + CLAIM_ABANDONED_MS + 1),
    // The stalled writer publishes right after this one's look for a segment at seq 0 found none.
    list: (path, options) => {
      const listed = readdirSync(path, options);
      // The look made once the claim is found held (its stack names the look for a segment there).
      const lookingForSegment = new Error().stack?.includes('segmentStarting') === true;
      if (lookingForSegment && looked++ === 0) {
        cpSync(join(elsewhere.folder, segment), join(path, segment), { recursive: true });
      }
      return listed;
    },
  });
  const outcome = await later.write('schedule', chainOf(log));
  expect(outcome).toMatchObject({ written: false, reason: 'taken' });
  const names = readdirSync(later.folder).filter((name) => !name.startsWith('.'));
  expect(names).toEqual([segment]);
  expect(later.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
});
