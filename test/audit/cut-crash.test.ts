// Retention cuts killed part-way: a replica in a process of its own (audit-cut-child.ts) on a SQLite
// file cuts five times in a row, with and without entries between, and each time is killed with SIGKILL
// at another step of the segment and the cut. Started again on the same file, the check at start finds
// the chain whole, the cut completes, and at the end both the bot's check and `npm run audit:verify`
// (pinned to the bot's key) say the archive is sound, and the bot started on the file says in Slack
// that the chain is intact.
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

interface ChildSaid {
  startedOk: boolean;
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
 * The child (cut-child.ts's bundle, support/node-entry.ts) at `seconds` past the start: append
 * `append` entries from `from`, then write a segment.
 */
async function child(dir: string, seconds: number, from: number, append: number, crashAt?: string) {
  const ran = await run(process.execPath, [await bundled('test/audit/cut-child.ts')], {
    timeout: 120_000,
    env: {
      PATH: process.env.PATH,
      AUDIT_DIR: dir,
      AUDIT_NOW: new Date(START + seconds * SECOND).toISOString(),
      AUDIT_RETENTION_MS: String(8 * SECOND),
      AUDIT_FROM: String(from),
      AUDIT_APPEND: String(append),
      ...(crashAt ? { CNGN_DESK_CRASH_AT: crashAt } : {}),
    },
  });
  const said = ran.stdout.trim() ? (JSON.parse(ran.stdout.trim()) as ChildSaid) : undefined;
  return { signal: ran.signal, status: ran.status, said, stderr: ran.stderr };
}

test('five cuts, each killed at another step and started again, leave a chain and an archive that verify', {
  timeout: 300_000,
}, async ({ dir }) => {
  // Two entries, then one five seconds later: the first cut removes the older two and keeps the third.
  expect((await child(dir, 0, 0, 2)).said).toMatchObject({ ok: true, outcome: { written: true } });
  expect((await child(dir, 5, 2, 1)).said).toMatchObject({ ok: true, outcome: { written: true } });
  let seconds = 9;
  let next = 3;
  let key = '';
  for (const [cut, point] of AUDIT_CRASH_POINTS.entries()) {
    const append = cut % 2 === 0 ? 1 : 0; // with entries between, and without
    const killed = await child(dir, seconds, next, append, point);
    expect(killed.signal, `${point}: ${killed.stderr.slice(-400)}`).toBe('SIGKILL');
    next += append;
    // Started again on the same file, once a claim the kill left is taken as abandoned: the check at
    // start finds the chain whole; the segment and the cut complete.
    seconds += CLAIM_ABANDONED_MS / SECOND;
    const again = await child(dir, seconds, next, 0);
    expect(again.status, again.stderr.slice(-400)).toBe(0);
    const said = again.said as ChildSaid;
    expect(said.startedOk, `${point}: ${said.problems.join('; ')}`).toBe(true);
    expect(said, point).toMatchObject({ ok: true, broken: null, problems: [] });
    const seqs = said.seqs.filter((seq) => seq !== null);
    expect(new Set(seqs).size, `${point}: no seq twice (${seqs.join(',')})`).toBe(seqs.length);
    key = said.publicKey;
    seconds += 9;
  }
  const last = (await child(dir, seconds, next, 0)).said as ChildSaid;
  expect(last).toMatchObject({ ok: true, problems: [] });
  expect(last.cut).toBeGreaterThan(3);

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
