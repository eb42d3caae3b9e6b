// Replacing the audit signing key as docs/audit.md says: a last segment, the folder moved aside, the
// store's records of the key and of the last segment written deleted, the marks files removed, every
// replica started with the new key. The new, empty folder then takes segments and the check is clean.
import { join } from 'node:path';
import { expect } from 'vitest';
import { newSigner, auditTest as test } from '../support/audit-archive.js';
import { auditDraft } from '../support/engine.js';

test('the documented key replacement leaves a new archive that is written and checks clean', async ({
  oneReplica,
  auditReplica,
  auditDir,
}) => {
  const a = await oneReplica('audit-archive-key-rotation');
  const old = auditReplica(a, { archiveDir: join(auditDir, 'old'), marks: join(auditDir, 'old-marks.json') });
  await old.keeper.start();
  for (let n = 0; n < 3; n++) await old.log.append('sandbox', auditDraft(n));
  expect(await old.keeper.archiveNow('command')).toMatchObject({ written: true, lastSeq: 2 });

  // The steps: (the old folder is kept aside: `old`), the two records deleted, new marks, the new key.
  await a.delete('approvals:audit-signing-key');
  await a.delete('approvals:audit-archived:sandbox');
  const fresh = auditReplica(a, {
    signer: newSigner(),
    archiveDir: join(auditDir, 'new'),
    marks: join(auditDir, 'new-marks.json'),
  });
  await fresh.keeper.start();
  await fresh.log.append('sandbox', auditDraft(3));
  expect(await fresh.keeper.archiveNow('command')).toMatchObject({ written: true, firstSeq: 0 });
  const kinds = (await fresh.keeper.check()).problems.map((p) => p.kind);
  expect(kinds.filter((kind) => kind.startsWith('archive-'))).toEqual([]);
});

test('with the record of the old folder kept, the new folder is refused: why the steps delete it', async ({
  oneReplica,
  auditReplica,
  auditDir,
}) => {
  const a = await oneReplica('audit-archive-key-rotation-kept-record');
  const old = auditReplica(a, { archiveDir: join(auditDir, 'old'), marks: join(auditDir, 'old-marks.json') });
  await old.keeper.start();
  for (let n = 0; n < 3; n++) await old.log.append('sandbox', auditDraft(n));
  expect(await old.keeper.archiveNow('command')).toMatchObject({ written: true });
  await a.delete('approvals:audit-signing-key');
  const fresh = auditReplica(a, {
    signer: newSigner(),
    archiveDir: join(auditDir, 'new'),
    marks: join(auditDir, 'new-marks.json'),
  });
  await fresh.keeper.start();
  expect(await fresh.keeper.archiveNow('command')).toMatchObject({ written: false, reason: 'refused' });
  expect((await fresh.keeper.check()).problems.map((p) => p.kind)).toContain('archive-behind');
});
