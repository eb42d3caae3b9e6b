// A claim given back, and a writer that meets another's claim, when writers overlap: a writer that found
// its claim its own and then stalled while a takeover made it another's (published from or not), the
// notes of a write that then fails (or whose logger throws), a second write of one writer while its first
// still holds its claim or after it took that claim over, and a claim moved away before its writer staged.
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type ArchiveOutcome, type AuditArchive, CLAIM_ABANDONED_MS } from '../../src/audit/archive.js';
import type { ListFolder } from '../../src/audit/archive-find.js';
import { AuditLog } from '../../src/audit/log.js';
import { CLAIMS_DIR, ENTRIES_FILE, MANIFEST_FILE } from '../../src/audit/segments.js';
import { auditTest as test } from '../support/audit-archive.js';
import { capturedLog } from '../support/captured-log.js';
import {
  abandonedClaim,
  appendMany,
  archiveOn,
  chainOf,
  keeperOn,
  lapsed,
  loggedReplicas,
  NOW,
  ownerFrozenAfterFirstRead,
} from './archive-support.js';

const LATER = new Date(NOW.getTime() + CLAIM_ABANDONED_MS);

const failure = (code: string) => Object.assign(new Error(`${code} (a failing disk)`), { code });

/** A promise and what settles it: a writer waits at it until the test lets it go on. */
function gate(): { arrived: Promise<void>; arrive: () => void; wait: Promise<void>; release: () => void } {
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const wait = new Promise<void>((resolve) => (release = resolve));
  return { arrived, arrive, wait, release };
}

/** The segment folders in `folder`, each with the files it holds. */
const segmentFiles = (folder: string) =>
  readdirSync(folder)
    .filter((name) => !name.startsWith('.'))
    .map((name) => readdirSync(join(folder, name)).sort());

test('a writer giving back a claim a takeover made another’s moves it away first: the other publishes a whole segment or none', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, b, log } = await loggedReplicas(replicas, 'audit-give-back-taken-over', 2);
  // The other writer (its lock lapsed), ten minutes on: the first writer's claim is abandoned by its
  // clock. It takes the claim over, stages its segment, and waits there until let go.
  const stalled = gate();
  const other = archiveOn(
    lapsed(b),
    { auditDir, signer },
    {
      now: () => LATER,
      staged: async () => {
        stalled.arrive();
        await stalled.wait;
      },
    },
  );
  let otherWrite: Promise<ArchiveOutcome> | undefined;
  let otherOutcome: ArchiveOutcome | Error | undefined;
  const notes: string[] = [];
  const writer = archiveOn(
    a,
    { auditDir, signer },
    {
      onNote: (note) => notes.push(note),
      // Its look at its claim before staging is read as it is; its look when giving the claim back, as it
      // was then: the writer read its own owner, then froze while the other took the claim over.
      readFile: ownerFrozenAfterFirstRead(),
      // Its disk fails once staged, after the other writer took over and staged.
      staged: async () => {
        otherWrite = other.write('schedule', chainOf(log));
        await stalled.arrived;
        throw failure('ENOSPC');
      },
      // A recursive delete goes file by file: the other writer's staged rename lands after the first.
      remove: async (path) => {
        const staged = readdirSync(path).find((name) => name.startsWith('staged-'));
        if (staged && otherWrite && !otherOutcome) {
          rmSync(join(path, staged, ENTRIES_FILE));
          stalled.release();
          otherOutcome = await otherWrite.catch((error: Error) => error);
        }
        await rm(path, { recursive: true, force: true });
      },
    },
  );
  await expect(writer.write('schedule', chainOf(log))).rejects.toThrow('ENOSPC');
  stalled.release();
  otherOutcome ??= await otherWrite?.catch((error: Error) => error);
  // No segment lacks a file: the other writer published nothing (its staged folder moved away whole).
  for (const files of segmentFiles(writer.folder)) expect(files).toEqual([ENTRIES_FILE, MANIFEST_FILE]);
  expect(otherOutcome).toBeInstanceOf(Error);
  expect(String(otherOutcome)).toContain('was taken over while this writer was stalled; nothing was written');
  // The operator hears of it as it happens, though the write then fails.
  expect(notes).toEqual([
    expect.stringMatching(
      /^gave back the claim of seq 0, which another writer had taken over meanwhile \(.+, 2026-11-02T10:10:00\.000Z\): that writer publishes nothing from it and claims again$/,
    ),
  ]);
  // It claims afresh at its next write, and writes the whole segment.
  expect(await other.write('schedule', chainOf(log))).toMatchObject({
    written: true,
    firstSeq: 0,
    lastSeq: 1,
  });
  expect(other.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
  expect(readdirSync(join(other.folder, CLAIMS_DIR))).toEqual(['0000000000']);
});

test('the keeper logs a takeover as it happens, though the write then fails', async ({
  oneReplica,
  auditDir,
  signer,
}) => {
  const a = await oneReplica('audit-give-back-keeper-note');
  const { logger, entries } = capturedLog('warn');
  // The store fails to record the segment written: the write throws after its takeover.
  const failing = new Proxy(a, {
    get(target, property, receiver) {
      if (property === 'compareAndSet') {
        return (key: string, expected: unknown, next: unknown) =>
          key.startsWith('approvals:audit-archived:')
            ? Promise.reject(failure('ECONNRESET'))
            : target.compareAndSet(key, expected, next);
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const log = new AuditLog(failing);
  const keeper = keeperOn(failing, log, { auditDir, signer }, logger);
  await appendMany(log, 0, 1);
  const at = abandonedClaim(join(auditDir, 'archive', 'sandbox'));
  await expect(keeper.archiveNow('command')).rejects.toThrow('ECONNRESET');
  expect(entries).toContainEqual(
    expect.objectContaining({
      message: 'audit archive claims',
      note: `took over the abandoned claim of seq 0 (by replica-gone, ${at})`,
    }),
  );
});

test('a second write of one writer while its first holds the claim is refused, and the first still writes', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-give-back-own-live-claim', 2);
  let second: ArchiveOutcome | undefined;
  let stalled = false;
  // Its lock lapsed: its second write starts while the first is stalled with its segment staged.
  const archive: AuditArchive = archiveOn(
    lapsed(a),
    { auditDir, signer },
    {
      staged: async () => {
        if (stalled) return;
        stalled = true;
        second = await archive.write('command', chainOf(log));
      },
    },
  );
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({
    written: true,
    firstSeq: 0,
    lastSeq: 1,
  });
  expect(second).toMatchObject({ written: false, reason: 'refused' });
  expect(second?.written === false && second.reason === 'refused' && second.why).toContain(
    'seq 0 is claimed in',
  );
  expect(segmentFiles(archive.folder)).toEqual([[ENTRIES_FILE, MANIFEST_FILE]]);
  expect(archive.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
});

test('a write of one writer stalled past the takeover of its claim by a later write of the same writer publishes nothing', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-give-back-own-write-taken-over', 2);
  let clock = NOW;
  let second: ArchiveOutcome | undefined;
  // Its lock lapsed: the first write stalls holding its claim of seq 0 until, ten minutes on, a second
  // write of the same writer took that claim over as abandoned and published.
  const archive: AuditArchive = archiveOn(
    lapsed(a),
    { auditDir, signer },
    {
      now: () => clock,
      claimed: async () => {
        if (second) return;
        clock = LATER;
        second = await archive.write('command', chainOf(log));
      },
    },
  );
  await expect(archive.write('schedule', chainOf(log))).rejects.toThrow(
    'the claim of seq 0 was taken over while this writer was stalled; nothing was written',
  );
  expect(second).toMatchObject({ written: true, firstSeq: 0, lastSeq: 1 });
  expect(segmentFiles(archive.folder)).toEqual([[ENTRIES_FILE, MANIFEST_FILE]]);
  expect(archive.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
});

test('a logger that throws at a note does not stop the write', async ({ replicas, auditDir, signer }) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-give-back-note-throws', 1);
  const archive = archiveOn(
    a,
    { auditDir, signer },
    {
      onNote: () => {
        throw new Error('the logger is down');
      },
    },
  );
  const at = abandonedClaim(archive.folder);
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({
    written: true,
    notes: [`took over the abandoned claim of seq 0 (by replica-gone, ${at})`],
  });
  expect(archive.read()).toMatchObject({ problems: [], verifiedHead: { seq: 0 } });
});

test('a writer whose claim was moved away before it staged says it was taken over, and writes nothing', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-give-back-moved-before-staging', 1);
  // While it stalls after claiming, a takeover renames its claim away and stops before claiming afresh.
  const archive: AuditArchive = archiveOn(
    a,
    { auditDir, signer },
    {
      claimed: async () => {
        const claims = join(archive.folder, CLAIMS_DIR);
        renameSync(join(claims, '0000000000'), join(claims, '.0000000000-abandoned-x'));
      },
    },
  );
  await expect(archive.write('schedule', chainOf(log))).rejects.toThrow(
    'the claim of seq 0 was taken over while this writer was stalled; nothing was written',
  );
  expect(segmentFiles(archive.folder)).toEqual([]);
});

test('a writer giving back a claim another took over and published from says nothing was lost', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, b, log } = await loggedReplicas(replicas, 'audit-give-back-published', 2);
  const other = archiveOn(lapsed(b), { auditDir, signer }, { now: () => LATER });
  let published = false;
  let hidden = false;
  const notes: string[] = [];
  const writer = archiveOn(
    a,
    { auditDir, signer },
    {
      onNote: (note) => notes.push(note),
      // It looked for a segment and at its claim before the other published, and froze: the first listing
      // and owner read after the other's write are as they were before it.
      readFile: ownerFrozenAfterFirstRead(),
      list: ((path: string, options: { withFileTypes: true }) => {
        const listed = readdirSync(path, options);
        if (!published || hidden || path !== writer.folder) return listed;
        hidden = true;
        return listed.filter((entry) => entry.name.startsWith('.'));
      }) as ListFolder,
      // The other writer takes the claim over and publishes; then this writer's disk fails.
      staged: async () => {
        expect(await other.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 0 });
        published = true;
        throw failure('ENOSPC');
      },
    },
  );
  await expect(writer.write('schedule', chainOf(log))).rejects.toThrow('ENOSPC');
  expect(notes).toEqual([
    expect.stringMatching(
      /^gave back the claim of seq 0, which another writer had taken over meanwhile \(.+, 2026-11-02T10:10:00\.000Z\) and had already published segment 0000000000-0000000001-20261102T101000Z from; nothing is lost$/,
    ),
  ]);
  expect(segmentFiles(writer.folder)).toEqual([[ENTRIES_FILE, MANIFEST_FILE]]);
  expect(writer.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
});
