// The archive when the file system fails it: a rename that fails after the claim, and folders the bot's
// user may not read (an archive restored as root, 0700). Root reads every folder and the files run in one
// module graph (no module mocks), so the failures are ones no user gets past (a folder where a file is,
// a rename over a link) or, for the verifier's listing, a stand-in for readdirSync that denies.
import { spawnSync } from 'node:child_process';
import { type Dirent, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { findArchive } from '../../src/audit/archive-find.js';
import { archiveProblems } from '../../src/audit/problems.js';
import { CLAIMS_DIR, INCOMING_DIR, segmentName, verifySegments } from '../../src/audit/segments.js';
import { auditTest as test } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';
import { appendMany, archiveIn, archiveOn, chainOf, loggedReplicas, NOW } from './archive-support.js';

const VERIFIER = fileURLToPath(new URL('../../scripts/audit-verify.mjs', import.meta.url));

test('a write that fails after its claim gives the claim back, so the next write goes on without a restart', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-failed-put', 2);
  const archive = archiveOn(a, { auditDir, signer });
  // A link where the segment is renamed to: the rename fails (ENOTDIR), as a full disk's would.
  mkdirSync(archive.folder, { recursive: true });
  const target = join(archive.folder, segmentName(0, 1, NOW));
  symlinkSync(join(auditDir, 'nowhere'), target);
  await expect(archive.write('schedule', chainOf(log))).rejects.toThrow();
  expect(readdirSync(join(archive.folder, CLAIMS_DIR))).toEqual([]);
  expect(readdirSync(archive.folder).filter((name) => name === INCOMING_DIR)).toEqual([]);
  rmSync(target);
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({
    written: true,
    firstSeq: 0,
    lastSeq: 1,
  });
  expect(archive.read()).toMatchObject({ problems: [], verifiedHead: { seq: 1 } });
});

test('an archive folder the bot cannot read is a broken archive, not an error', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-unreadable', 2);
  const archive = archiveOn(a, { auditDir, signer });
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true });
  // `.incoming` that cannot be listed: the start-up clearing does not throw.
  writeFileSync(join(archive.folder, INCOMING_DIR), '');
  expect(await archive.clearIncoming()).toBe(false);
  // The environment's folder cannot be listed: the check says the archive is broken.
  rmSync(archive.folder, { recursive: true });
  writeFileSync(archive.folder, '');
  const report = archive.read();
  expect(report.problems).toEqual([
    { segment: 'sandbox', text: `the folder ${archive.folder} cannot be read (ENOTDIR)` },
  ]);
  const entries = await log.entries('sandbox');
  const problems = archiveProblems(report, entries, { ok: true } as never, await archive.record());
  expect(problems.map((p) => p.kind)).toContain('archive-invalid');
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: false, reason: 'refused' });
});

test('the verifier given the archive root reports the folders it cannot read', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-unreadable-parts', 2);
  const root = join(auditDir, 'archive');
  const archive = archiveIn(root, signer, a);
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true });
  await appendMany(log, 2, 1);
  const later = archiveIn(root, signer, a);
  const written = await later.write('command', chainOf(log));
  expect(written).toMatchObject({ written: true, firstSeq: 2 });
  const second = written.written ? written.segment : '';
  mkdirSync(join(root, 'live'));
  mkdirSync(join(root, 'lost+found'));
  mkdirSync(join(archive.folder, 'notes'));
  const denied = new Set([
    join(archive.folder, second),
    join(root, 'live'),
    join(root, 'lost+found'),
    join(archive.folder, 'notes'),
  ]);
  const list = (path: string, options: { withFileTypes: true }): Dirent[] => {
    if (denied.has(path))
      throw Object.assign(new Error(`EACCES: permission denied, '${path}'`), { code: 'EACCES' });
    return readdirSync(path, options);
  };
  const found = findArchive(root, list);
  const reports = found.environments.map((e) => verifySegments(e.name, e.segments));
  expect(reports.map((r) => [r.environment, r.problems])).toEqual([
    ['live', [{ segment: 'live', text: 'the folder cannot be read (EACCES)' }]],
    ['sandbox', [{ segment: second, text: 'the folder cannot be read (EACCES)' }]],
  ]);
});

test("a mount root's folders that are not the archive's are skipped; a passing failure to list is thrown", async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-mount-root', 1);
  const root = join(auditDir, 'archive');
  const archive = archiveIn(root, signer, a);
  expect(await archive.write('schedule', chainOf(log))).toMatchObject({ written: true });
  mkdirSync(join(root, 'lost+found'));
  const failing = (code: string, at: string) => (path: string, options: { withFileTypes: true }) => {
    if (path === at) throw Object.assign(new Error(`${code}: '${path}'`), { code });
    return readdirSync(path, options);
  };
  const found = findArchive(root, failing('EACCES', join(root, 'lost+found')));
  expect(found.environments.map((e) => [e.name, verifySegments(e.name, e.segments).problems])).toEqual([
    ['sandbox', []],
  ]);
  expect(() => findArchive(root, failing('EMFILE', archive.folder))).toThrow('EMFILE');
});

test('out of file handles, the check fails with an error; it does not call the archive broken', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a } = await loggedReplicas(replicas, 'audit-archive-emfile', 1);
  const dir = join(auditDir, 'archive');
  const listing = (code: string) => () => {
    throw Object.assign(new Error(`${code}: too many open files`), { code });
  };
  const archiveListing = (code: string) => archiveIn(dir, signer, a, { list: listing(code) });
  expect(() => archiveListing('EMFILE').read()).toThrow('EMFILE');
  expect(archiveListing('EACCES').read().problems).toEqual([
    { segment: 'sandbox', text: `the folder ${join(dir, 'sandbox')} cannot be read (EACCES)` },
  ]);
});

test('an archive root the bot cannot enter is reported, not taken for an empty archive', async ({
  oneReplica,
  auditDir,
  signer,
}) => {
  const a = await oneReplica('audit-archive-root-unreadable');
  const root = join(auditDir, 'not-a-folder');
  writeFileSync(root, ''); // a root no user can list through
  const archive = archiveIn(root, signer, a);
  expect(archive.read().problems).toEqual([
    { segment: 'sandbox', text: `the folder ${archive.folder} cannot be read (ENOTDIR)` },
  ]);
});

test('the keeper starts on an archive it cannot read and its check reports the archive broken', async ({
  oneReplica,
  auditReplica,
  auditDir,
}) => {
  const a = await oneReplica('audit-archive-unreadable-keeper');
  const dir = join(auditDir, 'restored');
  mkdirSync(dir);
  writeFileSync(join(dir, 'sandbox'), ''); // the environment's folder, unlistable whatever the user
  const replica = auditReplica(a, { archiveDir: dir });
  await replica.keeper.start();
  await replica.log.append('sandbox', auditDraft(0));
  const check = await replica.keeper.check();
  expect(check.ok).toBe(false);
  expect(check.problems.map((p) => p.kind)).toContain('archive-invalid');
});

test('the verifier reports a segment folder emptied of its files, however it is given', async ({
  replicas,
  auditDir,
  signer,
}) => {
  const { a, log } = await loggedReplicas(replicas, 'audit-archive-emptied-segment', 2);
  const root = join(auditDir, 'archive');
  expect(await archiveIn(root, signer, a).write('schedule', chainOf(log))).toMatchObject({ written: true });
  await appendMany(log, 2, 1);
  const archive = archiveIn(root, signer, a);
  const last = await archive.write('command', chainOf(log));
  const emptied = join(archive.folder, last.written ? last.segment : '');
  for (const file of readdirSync(emptied)) rmSync(join(emptied, file));
  // The standalone verifier, as an auditor runs it: the archive, the environment, the segment alone.
  for (const path of [root, archive.folder, emptied]) {
    const run = spawnSync(process.execPath, [VERIFIER, path, '--key', signer.publicKey], {
      encoding: 'utf8',
      env: {},
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^PROBLEM [^/]+/${basename(emptied)}: `, 'm'));
  }
});
