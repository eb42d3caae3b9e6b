// The head marks: replicas sharing one marks file see each other's marks while they run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { HeadMarks } from '../../src/audit/signing.js';

it('a mark another process sharing the file raised is seen at the next read, and a lower one is not taken', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'marks-')), 'marks.json');
  const at = new Date('2026-11-01T09:00:00.000Z');
  const a = new HeadMarks(file);
  const b = new HeadMarks(file);
  expect(b.get('sandbox')).toBeUndefined();

  a.raise('sandbox', { seq: 5, hash: 'a'.repeat(64) }, at);
  expect(b.get('sandbox')).toMatchObject({ seq: 5, hash: 'a'.repeat(64) });

  b.raise('sandbox', { seq: 7, hash: 'b'.repeat(64) }, at);
  a.reset('sandbox', { seq: 6, hash: 'c'.repeat(64) }, at);
  expect(a.get('sandbox')).toMatchObject({ seq: 6 });
  expect(b.get('sandbox')).toMatchObject({ seq: 7 });
});

it('a mark another process wrote before this one writes its own is not missed', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'marks-')), 'marks.json');
  const at = new Date('2026-11-01T09:00:00.000Z');
  const a = new HeadMarks(file);
  const b = new HeadMarks(file);

  b.raise('live', { seq: 9, hash: 'b'.repeat(64) }, at);
  // a's write reads b's mark and keeps it in the file: a has it too, though the file is now a's own.
  a.raise('sandbox', { seq: 2, hash: 'a'.repeat(64) }, at);

  expect(a.get('live')).toMatchObject({ seq: 9 });
});
