// Retention cuts killed part-way: replicas in processes of their own (cut-child.ts) on one SQLite file,
// one after another. Each starts on what the one before left (its check at start completes a cut a
// kill stopped), says what the check finds, then nine seconds on writes a segment and cuts, with
// entries between and without, and is killed with SIGKILL at another step of the segment and the cut.
// Each check at start finds the chain whole; the last replica, not killed, completes its segment and
// cut, and then both the bot's check and `npm run audit:verify` (pinned to the bot's key) say the
// archive is sound, and the bot started on the file says in Slack that the chain is intact.
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { CLAIM_ABANDONED_MS } from '../../src/audit/archive.js';
import { AUDIT_CRASH_POINTS } from '../../src/crash-points.js';
import { createStore } from '../../src/store/index.js';
import { APPROVER_A, startApprovalApp } from '../slack/approvals/support.js';
import { test as base, inMemoryDir } from '../support/fixtures.js';
import { bundled } from '../support/node-entry.js';
import { commandAnswer } from '../support/slack-requests.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECOND = 1000;
const START = Date.parse('2026-11-01T09:00:00.000Z');
const RETENTION_S = 8;
// Past the retention: what the start wrote (the record of a cut it completed) is old enough for the
// segment's cut to remove.
const SEGMENT_AFTER_S = RETENTION_S + 1;

/** What the check at start found (a process killed later has said it already). */
interface ChildStarted {
  ok: boolean;
  broken: string | null;
  problems: string[];
  seqs: Array<number | null>;
}

/** What the check said once the segment and the cut were written. */
interface ChildSaid {
  outcome: { written: boolean; reason?: string; why?: string };
  ok: boolean;
  broken: string | null;
  problems: string[];
  cut: number;
  seqs: Array<number | null>;
  publicKey: string;
}

/**
 * `dir`, a folder of the test's own for the SQLite file and the archive, in memory where the system has
 * one: a process killed with SIGKILL leaves what it wrote to the system, so no step needs a disk's sync.
 */
const test = base.extend('dir', async ({ defer }) => {
  const dir = inMemoryDir();
  defer(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
});

/** What a process said and how it ended (an exit status, or the signal that ended it). */
interface Ran {
  stdout: string;
  stderr: string;
  status: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * `command` to its end, without blocking this process (the worker's other files go on meanwhile): a
 * status other than 0 or a signal is an outcome the test reads, not an error.
 */
async function run(command: string, args: string[], options: { env: NodeJS.ProcessEnv; timeout?: number }) {
  return promisify(execFile)(command, args, { cwd: ROOT, encoding: 'utf8', ...options }).then(
    ({ stdout, stderr }): Ran => ({ stdout, stderr, status: 0, signal: null }),
    (failed: { stdout: string; stderr: string; code?: number | string; signal?: NodeJS.Signals }): Ran => ({
      stdout: failed.stdout,
      stderr: failed.stderr,
      status: typeof failed.code === 'number' ? failed.code : null,
      signal: failed.signal ?? null,
    }),
  );
}

/**
 * The child (cut-child.ts's bundle, support/node-entry.ts) started at `seconds` past the start: nine
 * seconds on, it appends `append` entries from `from`, then writes a segment. `started`: what its check
 * at start found; `said`: what its check said at the end, if it got there.
 */
async function child(dir: string, seconds: number, from: number, append: number, crashAt?: string) {
  const ran = await run(process.execPath, [await bundled('test/audit/cut-child.ts')], {
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      AUDIT_DIR: dir,
      AUDIT_NOW: new Date(START + seconds * SECOND).toISOString(),
      AUDIT_SEGMENT_AT: new Date(START + (seconds + SEGMENT_AFTER_S) * SECOND).toISOString(),
      AUDIT_RETENTION_MS: String(RETENTION_S * SECOND),
      AUDIT_FROM: String(from),
      AUDIT_APPEND: String(append),
      ...(crashAt ? { CNGN_DESK_CRASH_AT: crashAt } : {}),
    },
  });
  const [started, said] = ran.stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as unknown);
  return {
    signal: ran.signal,
    status: ran.status,
    started: started as ChildStarted | undefined,
    said: said as ChildSaid | undefined,
    stderr: ran.stderr,
  };
}

/** No seq twice in `seqs`. */
function expectDistinct(seqs: Array<number | null>, what: string) {
  const numbered = seqs.filter((seq) => seq !== null);
  expect(new Set(numbered).size, `${what}: no seq twice (${numbered.join(',')})`).toBe(numbered.length);
}

test('five cuts, each killed at another step and started again, leave a chain and an archive that verify', {
  timeout: 300_000,
}, async ({ dir }) => {
  let seconds = 0;
  let next = 0;
  let after = 'a first start';
  for (const [turn, point] of AUDIT_CRASH_POINTS.entries()) {
    const append = turn === 0 ? 2 : turn % 2 === 0 ? 1 : 0; // with entries between, and without
    const killed = await child(dir, seconds, next, append, point);
    expect(killed.started, `after ${after}: ${killed.stderr.slice(-400)}`).toMatchObject({
      ok: true,
      broken: null,
      problems: [],
    });
    expectDistinct(killed.started?.seqs ?? [], `after ${after}`);
    expect(killed.signal, `${point}: ${killed.stderr.slice(-400)}`).toBe('SIGKILL');
    next += append;
    // The next starts once a claim the kill left is taken as abandoned.
    seconds += SEGMENT_AFTER_S + CLAIM_ABANDONED_MS / SECOND;
    after = point;
  }
  const last = await child(dir, seconds, next, 0);
  expect(last.status, last.stderr.slice(-400)).toBe(0);
  expect(last.started, `after ${after}`).toMatchObject({ ok: true, broken: null, problems: [] });
  expectDistinct(last.started?.seqs ?? [], `after ${after}`);
  const said = last.said as ChildSaid;
  expect(said).toMatchObject({ outcome: { written: true }, ok: true, broken: null, problems: [] });
  expectDistinct(said.seqs, 'at the end');
  expect(said.cut).toBeGreaterThan(3);
  const key = said.publicKey;

  const verifier = await run(
    'npm',
    ['run', '--silent', 'audit:verify', '--', join(dir, 'audit-archive'), '--key', key],
    { env: { PATH: process.env.PATH } },
  );
  expect(verifier.stdout).toContain('No problems: every signature, hash and link checks out.');
  expect(verifier.status).toBe(0);

  // The bot itself on the same file: `/cngn audit verify` says the chain is intact.
  const storeUrl = `sqlite://${join(dir, 'desk.sqlite')}`;
  const store = await createStore(storeUrl);
  const app = await startApprovalApp({ store, config: { storeUrl } });
  try {
    const answer = JSON.stringify((await commandAnswer(app, 'audit verify', APPROVER_A)).body);
    expect(answer).toContain('Audit chain intact');
    expect(answer).toContain(`its public key is \`${key}\``);
  } finally {
    await app.stop();
    await store.close();
  }
});
