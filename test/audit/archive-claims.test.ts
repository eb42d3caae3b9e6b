// The claims of archive segments when the file system fails them: an owner file the bot cannot read, a
// passing failure (out of file handles) while a writer checks its claim is still its own, the folder of
// a claim taken over that cannot be removed, and a passing failure reading a segment's files. Root
// reads every file, so the lasting failures are ones no user gets past (a folder where a file is); the
// passing ones, and a removal that fails, are the archive's stand-ins for node's calls.
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { CLAIM_ABANDONED_MS } from '../../src/audit/archive.js';
import { AuditLog } from '../../src/audit/log.js';
import { CLAIMS_DIR, ENTRIES_FILE, MANIFEST_FILE } from '../../src/audit/segments.js';
import { auditTest as test } from '../support/audit-archive.js';
import { capturedLog } from '../support/captured-log.js';
import {
  type ArchiveOptions,
  abandonedClaim,
  appendMany,
  archiveOn,
  chainOf,
  keeperOn,
  loggedReplicas,
  NOW,
} from './archive-support.js';

const failure = (code: string, path: string) =>
  Object.assign(new Error(`${code}: '${path}'`), { code, errno: -1, syscall: 'open', path });

/** node's readFileSync, but the next `times` reads of a file named `name` fail with `code`. */
function failingReads(name: string, code: string, times: number): NonNullable<ArchiveOptions['readFile']> {
  let left = times;
  return (path) => {
    if (path.endsWith(`/${name}`) && left > 0) {
      left -= 1;
      throw failure(code, path);
    }
    return readFileSync(path);
  };
}

test('a claim whose owner file cannot be read is held until it is old by its folder, then taken over and reported', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-claims-owner-unreadable', 1);
  let now = NOW;
  const archive = archiveOn(
    a,
    { auditDir, signer },
    {
      now: () => now,
    },
  );
  // A claim whose owner.json is a folder: no user reads it (EISDIR).
  const claim = join(archive.folder, CLAIMS_DIR, '0000000000');
  mkdirSync(join(claim, 'owner.json'), { recursive: true });
  utimesSync(claim, NOW, NOW);
  const refused = await archive.write('schedule', chainOf(log));
  expect(refused).toMatchObject({ written: false, reason: 'refused' });
  expect(refused.written === false && refused.reason === 'refused' && refused.why).toContain(
    `seq 0 is claimed in ${join(archive.folder, CLAIMS_DIR)} (by a writer that is not known: its owner.json cannot be read (EISDIR); the claim folder dates from ${NOW.toISOString()})`,
  );
  now = new Date(NOW.getTime() + CLAIM_ABANDONED_MS);
  const written = await archive.write('schedule', chainOf(log));
  expect(written).toMatchObject({ written: true, firstSeq: 0 });
  expect(written.notes).toEqual([
    `took over the abandoned claim of seq 0 (by a writer that is not known: its owner.json cannot be read (EISDIR); the claim folder dates from ${NOW.toISOString()})`,
  ]);
  expect(archive.read()).toMatchObject({ problems: [], verifiedHead: { seq: 0 } });

  // An owner file that is not JSON, or names no writer and time, is read the same way.
  for (const [seq, text, why] of [
    [1, 'not json', 'is not JSON'],
    [2, '{"owner":7}', 'does not name a writer and a time'],
  ] as const) {
    await appendMany(log, seq, 1);
    const next = join(archive.folder, CLAIMS_DIR, `000000000${seq}`);
    mkdirSync(next);
    writeFileSync(join(next, 'owner.json'), text);
    utimesSync(next, now, now);
    const held = await archive.write('schedule', chainOf(log));
    expect(held.written === false && held.reason === 'refused' && held.why).toContain(
      `(by a writer that is not known: its owner.json ${why}; the claim folder dates from ${now.toISOString()})`,
    );
    now = new Date(now.getTime() + CLAIM_ABANDONED_MS);
    expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: seq });
  }
});

test('out of file handles while checking its claim is still its own, a writer tries again and writes; it is no takeover', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-claims-owns-emfile', 2);
  const archive = archiveOn(
    a,
    { auditDir, signer },
    {
      readFile: failingReads('owner.json', 'EMFILE', 2),
    },
  );
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 0 });
  // A failure that does not pass is thrown as itself, not read as a takeover, and the claim is given back.
  await appendMany(log, 2, 1);
  const lasting = archiveOn(
    a,
    { auditDir, signer },
    {
      readFile: failingReads('owner.json', 'EMFILE', 4),
    },
  );
  await expect(lasting.write('schedule', chainOf(log))).rejects.toThrow('EMFILE');
  expect(readdirSync(join(archive.folder, CLAIMS_DIR))).toEqual(['0000000000']);
  expect(await lasting.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 2 });
});

test('a claim its own failed write could not give back is taken back by that writer at once, and by no other', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-claims-own-left', 1);
  const on = (readFile?: ArchiveOptions['readFile']) =>
    archiveOn(a, { auditDir, signer }, readFile ? { readFile } : {});
  // Out of file handles through every try, both while checking the claim and while giving it back.
  const writer = on(failingReads('owner.json', 'EMFILE', 8));
  await expect(writer.write('schedule', chainOf(log))).rejects.toThrow(
    "this writer's claim of seq 0 could not be given back (EMFILE): this writer takes it back at its next write, another replica (or the bot restarted) 10 minutes after it was made",
  );
  expect(readdirSync(join(writer.folder, CLAIMS_DIR))).toEqual(['0000000000']);
  // Another writer (another replica, or this one restarted) cannot tell it from a writer under way.
  expect(await on().write('schedule', chainOf(log))).toMatchObject({ written: false, reason: 'refused' });
  expect(await writer.write('schedule', chainOf(log))).toMatchObject({ written: true, firstSeq: 0 });
  expect(writer.read()).toMatchObject({ problems: [], verifiedHead: { seq: 0 } });
});

test('the folder of a claim taken over that cannot be removed is reported, is no claim, and goes at the next segment', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-claims-abandoned-left', 1);
  let failRemovals = 1;
  const archive = archiveOn(
    a,
    { auditDir, signer },
    {
      remove: async (path) => {
        if (failRemovals-- > 0) throw failure('EBUSY', path);
        await rm(path, { recursive: true, force: true });
      },
    },
  );
  const claims = join(archive.folder, CLAIMS_DIR);
  const at = abandonedClaim(archive.folder);
  const written = await archive.write('schedule', chainOf(log));
  expect(written).toMatchObject({ written: true, firstSeq: 0 });
  const left = readdirSync(claims).filter((name) => name.startsWith('.'));
  expect(left).toHaveLength(1);
  expect(written.notes).toEqual([
    `took over the abandoned claim of seq 0 (by replica-gone, ${at})`,
    `the folder of a claim taken over, ${join(claims, left[0] ?? '')}, cannot be removed (EBUSY); it is no claim, and it is tried again at the next segment`,
  ]);
  await appendMany(log, 1, 1);
  const next = await archive.write('schedule', chainOf(log));
  expect(next).toMatchObject({ written: true, firstSeq: 1 });
  expect(next.notes).toBeUndefined();
  expect(readdirSync(claims).sort()).toEqual(['0000000000', '0000000001']);
  expect(archive.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
});

test("a passing failure reading a segment's files fails the check; a file no user can read is a broken segment", async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-claims-segment-emfile', 2);
  const on = (readFile?: ArchiveOptions['readFile']) =>
    archiveOn(a, { auditDir, signer }, readFile ? { readFile } : {});
  expect(await on().write('schedule', chainOf(log))).toMatchObject({ written: true });
  for (const name of [MANIFEST_FILE, ENTRIES_FILE]) {
    for (const code of ['EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY']) {
      expect(() => on(failingReads(name, code, 1)).read()).toThrow(code);
    }
  }
  expect(on().read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
  // entries.jsonl replaced by a folder: the segment is broken, and says why.
  const archive = on();
  const [segment] = readdirSync(archive.folder).filter((name) => !name.startsWith('.'));
  const entries = join(archive.folder, segment ?? '', ENTRIES_FILE);
  rmSync(entries);
  mkdirSync(entries);
  expect(archive.read().problems).toEqual([{ segment, text: `${ENTRIES_FILE} cannot be read (EISDIR)` }]);
});

test('the keeper logs a takeover of an abandoned claim as a warning', async ({
  oneReplica,
  auditDir,
  signer,
}) => {
  const a = await oneReplica('audit-claims-keeper-note');
  const { logger, entries } = capturedLog('warn');
  const log = new AuditLog(a);
  const keeper = keeperOn(a, log, { auditDir, signer }, logger);
  await appendMany(log, 0, 1);
  const claim = join(auditDir, 'archive', 'sandbox', CLAIMS_DIR, '0000000000');
  mkdirSync(join(claim, 'owner.json'), { recursive: true });
  utimesSync(
    claim,
    new Date(NOW.getTime() - CLAIM_ABANDONED_MS),
    new Date(NOW.getTime() - CLAIM_ABANDONED_MS),
  );
  expect(await keeper.archiveNow('command')).toMatchObject({ written: true, firstSeq: 0 });
  expect(entries).toContainEqual(
    expect.objectContaining({
      message: 'audit archive claims',
      note: expect.stringContaining('took over the abandoned claim of seq 0 (by a writer that is not known'),
    }),
  );
});
