// One writer of a shared marks file in a process of its own, for the test of writers at once: it opens
// MARKS_FILE, says `ready`, waits for a line on stdin (so two start together), raises MARKS_COUNT marks
// of environments named after MARKS_WRITER, one write each, and says `done` once the file took them all
// (or it gave up: a retry would not outlive the process). A warning goes to stderr.
import { createInterface } from 'node:readline';
import { setTimeout as pause } from 'node:timers/promises';
import { HeadMarks } from '../../src/audit/signing.js';

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const marks = new HeadMarks(env('MARKS_FILE'), (message, fields) => {
  process.stderr.write(`${JSON.stringify({ message, ...fields })}\n`);
});
const writer = env('MARKS_WRITER');
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
const at = new Date();
for (let n = 1; n <= Number(env('MARKS_COUNT')); n++) {
  marks.raise(`${writer}-${n}`, { seq: n, hash: writer.padEnd(64, '0') }, at);
}
// The other writer's lock is free again within its write: up to MARKS_TRIES tries (1000 unless set).
const tries = Number(process.env.MARKS_TRIES ?? '1000');
for (let tried = 1; !marks.writeNow() && tried < tries; tried++) await pause(5);
process.stdout.write('done\n');
