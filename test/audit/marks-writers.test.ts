// The marks file shared by replicas: writers at once lose none of each other's marks, never share a
// temporary file (in containers every replica is pid 1), never wait for the lock, never take over a
// live one, and what a stopped writer left is cleared.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, vi } from 'vitest';
import { HeadMarks } from '../../src/audit/signing.js';
import { tempDirTest } from '../support/fixtures.js';
import { bundled } from '../support/node-entry.js';

const AT = new Date('2026-11-01T09:00:00.000Z');
const HASH = 'a'.repeat(64);
const AN_HOUR_AGO = new Date(Date.now() - 3_600_000);

/** `marksFile`, a marks file in a folder of the test's own; `children`, processes stopped after it. */
const test = tempDirTest
  .extend('marksFile', async ({ tempDir }) => join(mkdtempSync(join(tempDir, 'marks-')), 'heads.json'))
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('children', async ({}, { onCleanup }) => {
    const started: ChildProcess[] = [];
    onCleanup(() => {
      for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill();
    });
    return started;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('hostClockAhead', async ({}, { onCleanup }) => {
    // This host's clock ahead of the shared volume's, which dates its files: Date.now() an hour on.
    const now = Date.now.bind(Date);
    const spy = vi.spyOn(Date, 'now');
    onCleanup(() => spy.mockRestore());
    return () => spy.mockImplementation(() => now() + 3_600_000);
  });

/** Waits until the file holds the mark of `environment` at `seq` (the cap is for a busy machine). */
async function writtenLater(file: string, environment: string, seq: number) {
  await expect
    .poll(() => (existsSync(file) ? stored(file)[environment]?.seq : undefined), { timeout: 20_000 })
    .toBe(seq);
}

function stored(file: string): Record<string, { seq: number }> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, { seq: number }>;
}

/**
 * Two replicas on one marks file at 105: while another writer holds the lock, `a` resets to 100 and
 * `b` raises to 106, both kept back in memory; the lock is then freed, nothing written yet.
 */
function resetAndRaiseKeptBack(file: string) {
  const a = new HeadMarks(file);
  const b = new HeadMarks(file);
  a.raise('sandbox', { seq: 105, hash: HASH }, AT);
  expect(b.get('sandbox')).toMatchObject({ seq: 105 });
  writeFileSync(`${file}.lock`, 'another writer at work');

  a.reset('sandbox', { seq: 100, hash: 'c'.repeat(64) }, AT);
  b.raise('sandbox', { seq: 106, hash: 'b'.repeat(64) }, AT);
  unlinkSync(`${file}.lock`);
  return { a, b };
}

/** marks-child.ts's bundle writing `count` marks of its own to `file`, once it is told to go. */
async function writer(file: string, name: string, count: number, { noFileWrites = false } = {}) {
  const entry = await bundled('test/audit/marks-child.ts');
  // `ulimit -f 0`: every write of a byte to a file fails (EFBIG), as on a full volume.
  const [command, args] = noFileWrites
    ? ['/bin/sh', ['-c', 'ulimit -f 0 && exec "$0" "$1"', process.execPath, entry]]
    : [process.execPath, [entry]];
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH,
      MARKS_FILE: file,
      MARKS_WRITER: name,
      MARKS_COUNT: String(count),
      ...(noFileWrites ? { MARKS_TRIES: '1' } : {}),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const said = createInterface({ input: child.stdout! });
  const ready = once(said, 'line');
  const exited = once(child, 'exit');
  return { child, ready, done: exited.then(([code]) => ({ code, stderr })) };
}

test('two replicas writing the marks file at once both keep every mark', async ({ marksFile, children }) => {
  const count = 50;
  const writers = await Promise.all(['left', 'right'].map((name) => writer(marksFile, name, count)));
  children.push(...writers.map((w) => w.child));
  await Promise.all(writers.map((w) => w.ready));
  for (const w of writers) w.child.stdin?.write('go\n');
  const ended = await Promise.all(writers.map((w) => w.done));
  expect(ended).toEqual([
    { code: 0, stderr: '' },
    { code: 0, stderr: '' },
  ]);

  const marks = stored(marksFile);
  const missing = ['left', 'right'].flatMap((name) =>
    Array.from({ length: count }, (_, i) => `${name}-${i + 1}`).filter(
      (key) => marks[key]?.seq === undefined,
    ),
  );
  expect(missing).toEqual([]);
});

test('a write leaves alone the temporary file of another writer with the same process id', ({
  marksFile,
}) => {
  // Another replica in a container of its own is pid 1 too: its half-written file at the name a
  // process id alone would give.
  const theirs = `${marksFile}.${process.pid}.part`;
  writeFileSync(theirs, '{"half":');
  const warnings: string[] = [];
  const marks = new HeadMarks(marksFile, (message) => warnings.push(message));

  marks.raise('sandbox', { seq: 3, hash: HASH }, AT);

  expect(readFileSync(theirs, 'utf8')).toBe('{"half":');
  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 3, hash: HASH } });
  expect(warnings).toEqual([]);
});

test('a lock left by a writer that stopped is taken over once it is old', ({ marksFile }) => {
  writeFileSync(`${marksFile}.lock`, 'a writer that was killed');
  utimesSync(`${marksFile}.lock`, AN_HOUR_AGO, AN_HOUR_AGO);
  const warnings: string[] = [];
  const marks = new HeadMarks(marksFile, (message) => warnings.push(message));

  marks.raise('sandbox', { seq: 4, hash: HASH }, AT);

  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 4 } });
  expect(existsSync(`${marksFile}.lock`)).toBe(false);
  expect(warnings).toEqual([]);
});

test('a write never waits for a lock another writer holds: the mark is kept and written once it is free', async ({
  marksFile,
  hostClockAhead,
}) => {
  const warnings: string[] = [];
  const marks = new HeadMarks(marksFile, (message) => warnings.push(message));
  marks.raise('sandbox', { seq: 2, hash: HASH }, AT);
  writeFileSync(`${marksFile}.lock`, 'another writer at work');

  marks.raise('sandbox', { seq: 5, hash: HASH }, AT);
  marks.raise('sandbox', { seq: 6, hash: HASH }, AT);

  expect(marks.get('sandbox')).toMatchObject({ seq: 6 });
  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 2 } });
  expect(readFileSync(`${marksFile}.lock`, 'utf8')).toBe('another writer at work');
  // Held for an instant, as two writes at once hold each other up, it is not worth a warning; held an
  // hour, it is, once.
  expect(warnings).toEqual([]);
  hostClockAhead();
  marks.raise('sandbox', { seq: 7, hash: HASH }, AT);
  marks.raise('sandbox', { seq: 8, hash: HASH }, AT);
  expect(warnings).toEqual([
    'the audit head marks file stays locked by another writer; marks kept in memory until it is free',
  ]);

  unlinkSync(`${marksFile}.lock`);
  await writtenLater(marksFile, 'sandbox', 8);
  expect(existsSync(`${marksFile}.lock`)).toBe(false);
});

test('a stale lock is taken over only in the breakers’ turn, and a turn left by a stopped breaker is cleared', async ({
  marksFile,
}) => {
  const marks = new HeadMarks(marksFile);
  writeFileSync(`${marksFile}.lock`, 'a writer that was killed');
  utimesSync(`${marksFile}.lock`, AN_HOUR_AGO, AN_HOUR_AGO);
  // Another writer is judging that lock: it alone may remove it.
  writeFileSync(`${marksFile}.lock.break`, '');

  marks.raise('sandbox', { seq: 3, hash: HASH }, AT);

  expect(existsSync(marksFile)).toBe(false);
  expect(readFileSync(`${marksFile}.lock`, 'utf8')).toBe('a writer that was killed');

  // That writer stopped before it was done: its turn, once old, is cleared, then the lock taken over.
  utimesSync(`${marksFile}.lock.break`, AN_HOUR_AGO, AN_HOUR_AGO);
  await writtenLater(marksFile, 'sandbox', 3);
  expect(existsSync(`${marksFile}.lock`)).toBe(false);
  expect(existsSync(`${marksFile}.lock.break`)).toBe(false);
});

test('a dangling link at the lock’s name is a lock like another, never a loop', async ({ marksFile }) => {
  const marks = new HeadMarks(marksFile);
  symlinkSync(join(dirname(marksFile), 'gone'), `${marksFile}.lock`);

  marks.raise('sandbox', { seq: 4, hash: HASH }, AT);

  expect(marks.get('sandbox')).toMatchObject({ seq: 4 });
  expect(existsSync(marksFile)).toBe(false);

  unlinkSync(`${marksFile}.lock`);
  await writtenLater(marksFile, 'sandbox', 4);
});

test('a lock is judged old by the volume’s clock, not by a host clock ahead of it', async ({
  marksFile,
  hostClockAhead,
}) => {
  const marks = new HeadMarks(marksFile);
  writeFileSync(`${marksFile}.lock`, 'another writer at work');
  const writing = `${marksFile}.5d9f4e3b.part`;
  writeFileSync(writing, '{"half":');
  hostClockAhead();

  new HeadMarks(marksFile);
  marks.raise('sandbox', { seq: 7, hash: HASH }, AT);

  expect(existsSync(writing)).toBe(true);
  expect(existsSync(marksFile)).toBe(false);
  expect(readFileSync(`${marksFile}.lock`, 'utf8')).toBe('another writer at work');

  unlinkSync(`${marksFile}.lock`);
  await writtenLater(marksFile, 'sandbox', 7);
});

test('a write that fails on a full volume leaves no lock behind', async ({ marksFile, children }) => {
  const full = await writer(marksFile, 'full', 1, { noFileWrites: true });
  children.push(full.child);
  await full.ready;
  full.child.stdin?.write('go\n');
  const ended = await full.done;

  expect(ended.code).toBe(0);
  expect(ended.stderr).toContain('the audit head mark could not be written');
  expect(readdirSync(dirname(marksFile))).toEqual([]);
  // So the next writer is not held up by it.
  const marks = new HeadMarks(marksFile);
  marks.raise('sandbox', { seq: 8, hash: HASH }, AT);
  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 8 } });
});

test('temporary files a stopped writer left are removed at start, and one being written is not', ({
  marksFile,
}) => {
  const left = `${marksFile}.0b7e2c1a.part`;
  const writing = `${marksFile}.5d9f4e3b.part`;
  writeFileSync(left, '{"half":');
  utimesSync(left, AN_HOUR_AGO, AN_HOUR_AGO);
  writeFileSync(writing, '{"half":');

  new HeadMarks(marksFile);

  expect(existsSync(left)).toBe(false);
  expect(existsSync(writing)).toBe(true);
});

test('a reset kept back by the lock neither hides nor overwrites a higher mark another replica wrote after it', async ({
  marksFile,
}) => {
  const { a, b } = resetAndRaiseKeptBack(marksFile);
  expect(b.writeNow()).toBe(true);

  expect(a.get('sandbox')).toMatchObject({ seq: 106, hash: 'b'.repeat(64) });
  expect(a.writeNow()).toBe(true);
  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 106 } });
  expect(b.get('sandbox')).toMatchObject({ seq: 106 });
});

test('a reset kept back by the lock is written when no other replica wrote since; a kept-back raise leaves it in the file and keeps its own mark', ({
  marksFile,
}) => {
  const { a, b } = resetAndRaiseKeptBack(marksFile);
  expect(a.writeNow()).toBe(true);
  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 100 } });
  expect(b.writeNow()).toBe(true);

  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 100 } });
  expect(a.get('sandbox')).toMatchObject({ seq: 100 });
  expect(b.get('sandbox')).toMatchObject({ seq: 106 });
});

test('a raise kept back by the lock is never lowered by a lower mark written into the file', ({
  marksFile,
}) => {
  const marks = new HeadMarks(marksFile);
  marks.raise('sandbox', { seq: 100, hash: HASH }, AT);
  writeFileSync(`${marksFile}.lock`, 'someone holding the lock');

  marks.raise('sandbox', { seq: 120, hash: 'b'.repeat(64) }, AT);
  writeFileSync(
    marksFile,
    JSON.stringify({ sandbox: { seq: 90, hash: 'c'.repeat(64), at: AT.toISOString() } }),
  );

  expect(marks.get('sandbox')).toMatchObject({ seq: 120 });
});

test.for([
  { what: 'an array', text: '[]' },
  { what: 'a null mark', text: '{"sandbox": null, "live": {"seq": "9", "hash": "h", "at": "t"}}' },
])('a marks file holding $what loses no write', ({ text }, { marksFile }) => {
  writeFileSync(marksFile, text);
  const warnings: string[] = [];
  const marks = new HeadMarks(marksFile, (message) => warnings.push(message));

  marks.raise('sandbox', { seq: 3, hash: HASH }, AT);
  marks.raise('live', { seq: 2, hash: HASH }, AT);

  expect(warnings).toEqual([]);
  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 3 }, live: { seq: 2 } });
  expect(new HeadMarks(marksFile).get('sandbox')).toMatchObject({ seq: 3 });
});

test('closing the marks writes the ones the lock kept back', ({ marksFile }) => {
  const marks = new HeadMarks(marksFile);
  writeFileSync(`${marksFile}.lock`, 'another writer at work');
  marks.raise('sandbox', { seq: 4, hash: HASH }, AT);
  expect(existsSync(marksFile)).toBe(false);
  unlinkSync(`${marksFile}.lock`);

  marks.close();

  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 4 } });
});

test('a warning that cannot be logged does not fail the mark', ({ marksFile }) => {
  const marks = new HeadMarks(marksFile, () => {
    throw new Error('the log is gone');
  });
  // A folder at the file's name: every write fails.
  mkdirSync(marksFile);

  expect(() => marks.raise('sandbox', { seq: 4, hash: HASH }, AT)).not.toThrow();
  expect(marks.get('sandbox')).toMatchObject({ seq: 4 });
  marks.close();
});
