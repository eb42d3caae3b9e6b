// The head marks: replicas sharing one marks file see each other's marks while they run; a head checked
// against its mark formats the mark's time only for a problem it names.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { HeadMarks, markProblem } from '../../src/audit/signing.js';

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

afterEach(() => {
  vi.restoreAllMocks();
});

it('a head at or past its mark formats no time, so a restarted bot whose chain is sound maps no ICU data', () => {
  // A minute no other test formats: Lagos times are cached by the minute.
  const mark = { seq: 4, hash: 'a'.repeat(64), at: '2031-05-06T07:08:00.000Z' };
  const format = vi.spyOn(Intl.DateTimeFormat.prototype, 'formatToParts');
  expect(markProblem({ seq: 4, hash: 'a'.repeat(64) }, mark)).toBeUndefined();
  expect(markProblem({ seq: 5, hash: 'b'.repeat(64) }, mark)).toBeUndefined();
  expect(format).not.toHaveBeenCalled();
  // A head behind its mark is a problem, and its words name when the mark was made.
  expect(markProblem({ seq: 3, hash: 'c'.repeat(64) }, mark)?.text).toContain('6 May 2031');
  expect(format).toHaveBeenCalled();
});
