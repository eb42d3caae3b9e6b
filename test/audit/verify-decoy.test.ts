// A copy of a genuine segment's two files, added beside an archive's folders, never stands in for the
// archive: the verifier still checks every segment, their links and the passkey-signed approvals, and
// reports the copy itself as a problem. A folder is one segment alone only when named as a segment (or
// when its file is named); a folder holding an environment's folder is an archive whatever its name, and
// a segment's folder beside the environments' is reported, never read. A folder is named by its real
// name, so `.` from inside an environment's folder is that environment, and one copied under another
// name is not. The archives here are checked by the bundled script too.
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { expect } from 'vitest';
import { ENTRIES_FILE, MANIFEST_FILE } from '../../src/audit/segments.js';
import { verify, verifyFrom } from '../support/approver-archive.js';
import { rewriteSegment } from '../support/audit-archive.js';
import { APPROVER_A } from '../support/engine.js';
import { onRequest, problems, test, unsigned, verifiesCleanly } from './signed-archives.js';

const STANDALONE = { standalone: true };

/** The one segment of the environment's `folder`. */
const segmentOf = (folder: string) => join(folder, readdirSync(folder).find((n) => !n.startsWith('.')) ?? '');

/** The segment's two files copied into `into` (added, nothing rewritten); the copies' paths. */
function copySegmentFiles(segment: string, into: string): string[] {
  return [MANIFEST_FILE, ENTRIES_FILE].map((file) => {
    copyFileSync(join(segment, file), join(into, file));
    return join(into, file);
  });
}

/** The PROBLEM line of a segment's file outside any segment's folder. */
const strayLine = (file: string) =>
  `PROBLEM ${file}: a segment's file outside any segment's folder, where the bot writes none: not checked`;

test('a segment copied to the archive’s root does not hide an edited segment', ({ signed }) => {
  const { folder, signer } = signed;
  const archive = dirname(folder);
  const segment = segmentOf(folder);
  const copies = copySegmentFiles(segment, archive);
  const entries = join(segment, ENTRIES_FILE);
  writeFileSync(entries, readFileSync(entries, 'utf8').replace('"kind":"withdraw"', '"kind":"redeem"'));

  const { status, lines } = verify(archive, signer.publicKey, STANDALONE);
  expect(status).toBe(1);
  expect(problems(lines)).toEqual(
    expect.arrayContaining([...copies.map(strayLine), expect.stringMatching(/^PROBLEM sandbox\//)]),
  );
  expect(lines).not.toContain(
    'One segment checked alone: whether segments before or after it are missing is not checked.',
  );
});

test('an approval without its needed passkey signature is still reported beside a copied segment', ({
  signed,
}) => {
  const { folder, withdrawal, signer } = signed;
  rewriteSegment(folder, signer, onRequest(withdrawal, unsigned));
  const copies = copySegmentFiles(segmentOf(folder), dirname(folder));

  const { status, lines } = verify(dirname(folder), signer.publicKey, STANDALONE);
  expect(status).toBe(1);
  expect(problems(lines)).toEqual(
    expect.arrayContaining([
      ...copies.map(strayLine),
      expect.stringContaining(`${APPROVER_A}'s approval has no passkey signature`),
    ]),
  );
});

test('a segment’s files in an environment’s folder are a problem, from the archive or the environment', ({
  signed,
}) => {
  const { folder, signer } = signed;
  const copies = copySegmentFiles(segmentOf(folder), folder);
  for (const path of [dirname(folder), folder]) {
    const { status, lines } = verify(path, signer.publicKey, STANDALONE);
    expect(status).toBe(1);
    expect(problems(lines)).toEqual(copies.map(strayLine));
  }
});

test('a folder holding a segment’s files under another name is checked alone only through its file', ({
  signed,
}) => {
  const { folder, signer } = signed;
  const renamed = join(dirname(folder), '..', 'handed-over');
  mkdirSync(renamed);
  copySegmentFiles(segmentOf(folder), renamed);

  const refused = verify(renamed, signer.publicKey);
  expect(refused.status).toBe(2);
  expect(refused.lines[0]).toBe(
    `audit-verify: ${renamed} holds a segment's files but is not named as a segment's folder: give its ${MANIFEST_FILE} to check it alone`,
  );
  const lines = verifiesCleanly(join(renamed, MANIFEST_FILE), signer.publicKey, STANDALONE);
  expect(lines).toContain(
    'One segment checked alone: whether segments before or after it are missing is not checked.',
  );
});

/**
 * A copy of the archive as `top` in a folder beside it: a copy of its segment in a segment-named folder
 * beside the environment's folder, the segment's files in the environment's folder, and the genuine
 * segment then edited.
 */
function decoyedArchive(folder: string, top: string) {
  const archive = join(dirname(folder), '..', `decoyed-${top}`, top);
  cpSync(dirname(folder), archive, { recursive: true });
  const environment = join(archive, basename(folder));
  const segment = segmentOf(environment);
  const decoy = join(archive, basename(segment));
  cpSync(segment, decoy, { recursive: true });
  const copies = copySegmentFiles(segment, environment);
  const entries = join(segment, ENTRIES_FILE);
  writeFileSync(entries, readFileSync(entries, 'utf8').replace('"kind":"withdraw"', '"kind":"redeem"'));
  return { archive, decoy, copies };
}

for (const top of ['sandbox', 'handed-over']) {
  test(`a segment's folder beside the environment's, in an archive named ${top}, is reported, not read`, ({
    signed,
  }) => {
    const { folder, signer } = signed;
    const { archive, decoy, copies } = decoyedArchive(folder, top);

    const { status, lines } = verify(archive, signer.publicKey, STANDALONE);
    expect(status).toBe(1);
    expect(problems(lines)).toEqual(
      expect.arrayContaining([
        `PROBLEM ${decoy}: a segment's folder beside the environments' folders, where the bot writes none: not checked`,
        ...copies.map(strayLine),
        expect.stringMatching(/^PROBLEM sandbox\//),
      ]),
    );
  });
}

test('a segment’s folder given as `.` from inside it is that segment alone', ({ signed }) => {
  const { folder, signer } = signed;
  const lines = verifiesCleanly(`${segmentOf(folder)}/.`, signer.publicKey, STANDALONE);
  expect(lines).toContain(
    'One segment checked alone: whether segments before or after it are missing is not checked.',
  );
});

test('an environment’s folder given as `.` from inside it, or as `..` from a segment’s, is that environment', ({
  signed,
}) => {
  const { folder, signer } = signed;
  const from = verifyFrom(folder, '.', signer.publicKey);
  expect(problems(from.lines)).toEqual([]);
  expect(from.status).toBe(0);
  verifiesCleanly(`${folder}/.`, signer.publicKey, STANDALONE);
  verifiesCleanly(`${segmentOf(folder)}/..`, signer.publicKey, STANDALONE);
});

test('a link goes by its own name: one named live to the sandbox environment, or to a segment, fails; so does a copy', ({
  signed,
}) => {
  const { folder, signer } = signed;
  const elsewhere = join(dirname(folder), '..', 'elsewhere');
  mkdirSync(elsewhere);
  const linked = join(elsewhere, 'live');
  symlinkSync(folder, linked);
  const throughLink = verify(linked, signer.publicKey, STANDALONE);
  expect(problems(throughLink.lines)).toEqual([
    expect.stringMatching(/^PROBLEM live\/\S+: belongs to the sandbox environment, not live$/),
  ]);
  expect(throughLink.status).toBe(1);

  const toSegment = join(dirname(folder), '..', 'one-segment');
  mkdirSync(toSegment);
  symlinkSync(segmentOf(folder), join(toSegment, 'live'));
  expect(verify(join(toSegment, 'live'), signer.publicKey, STANDALONE).status).not.toBe(0);

  const copied = join(dirname(folder), '..', 'copied');
  cpSync(folder, copied, { recursive: true });
  const { status, lines } = verify(`${copied}/.`, signer.publicKey, STANDALONE);
  expect(problems(lines)).toEqual([
    expect.stringMatching(/^PROBLEM copied\/\S+: belongs to the sandbox environment, not copied$/),
  ]);
  expect(status).toBe(1);
});
