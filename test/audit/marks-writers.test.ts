// The marks file shared by replicas: writers at once lose none of each other's marks, never share a
// temporary file (in containers every replica is pid 1), and what a stopped writer left is cleared.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
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
  });

function stored(file: string): Record<string, { seq: number }> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, { seq: number }>;
}

/** marks-child.ts's bundle writing `count` marks of its own to `file`, once it is told to go. */
async function writer(file: string, name: string, count: number) {
  const child = spawn(process.execPath, [await bundled('test/audit/marks-child.ts')], {
    env: { PATH: process.env.PATH, MARKS_FILE: file, MARKS_WRITER: name, MARKS_COUNT: String(count) },
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
  const count = 300;
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

test('a write never goes past a lock another writer holds: past its wait, the mark stays in memory', ({
  marksFile,
}) => {
  const warnings: string[] = [];
  const marks = new HeadMarks(marksFile, (message) => warnings.push(message), { lockWaitMs: 20 });
  marks.raise('sandbox', { seq: 2, hash: HASH }, AT);
  writeFileSync(`${marksFile}.lock`, 'another writer at work');

  marks.raise('sandbox', { seq: 5, hash: HASH }, AT);

  expect(stored(marksFile)).toMatchObject({ sandbox: { seq: 2 } });
  expect(marks.get('sandbox')).toMatchObject({ seq: 5 });
  expect(warnings).toEqual(['the audit head mark could not be written; kept in memory']);
  expect(readFileSync(`${marksFile}.lock`, 'utf8')).toBe('another writer at work');
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
