// The audit signing key the bot makes for itself: only where it keeps its own store on its own disk.
// On PostgreSQL or Redis (shared by replicas, outliving any one container) it makes none and exits 1
// asking for CNGN_AUDIT_SIGNING_KEY_FILE; a key already there from an earlier start is still used.
// The process runs in a folder of its own, so ./data is that folder's.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { FakeSlack } from '../support/fake-slack.js';
import { slackTest } from '../support/file-slack.js';
import { bundledMain } from '../support/node-entry.js';
import { postgresAvailable, testDatabaseOnce } from '../support/postgres.js';

/**
 * For the whole file: `slack`; `dir`, the folder the bot runs in; `postgres`, whether a PostgreSQL
 * answers (the notice printed when none does) and the URL of a database of the file's own, dropped
 * after the file.
 */
const it = slackTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('dir', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-desk-audit-key-'));
    onCleanup(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('postgres', { scope: 'file' }, async ({}, { onCleanup }) => {
    const up = await postgresAvailable();
    const database = testDatabaseOnce();
    onCleanup(() => database.drop());
    return { up, url: database.url };
  });

/**
 * The bot as `npm start` runs it (dist/main.js, support/node-entry.ts) with approvals on, in `dir`, to
 * its exit: stopped once it runs, or failed to start.
 */
async function start({ slack, dir }: { slack: FakeSlack; dir: string }, env: Record<string, string>) {
  const child = spawn(process.execPath, [await bundledMain()], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      // No admin listener: the test reads the log only, and a fixed port may be taken.
      ADMIN_PORT: '0',
      LOG_LEVEL: 'info',
      SLACK_BOT_TOKEN: 'xoxb-audit-key-test',
      SLACK_SIGNING_SECRET: 'audit-key-test-signing-secret',
      SLACK_API_URL: slack.apiUrl,
      CNGN_APPROVALS_CHANNEL: 'C0APPROVALS',
      CNGN_APPROVERS: 'U0ONE,U0TWO',
      CNGN_APPROVAL_TIERS: '0:1',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let ran = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (!ran && stderr.includes('cngn-desk is running')) {
      ran = true;
      child.kill('SIGTERM');
    }
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const errors = stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: string; message: string })
    .filter((entry) => entry.level === 'error');
  return { code, ran, errors, stderr };
}

describe('the audit signing key on a shared store', () => {
  it('is not made on PostgreSQL: the bot exits 1 naming CNGN_AUDIT_SIGNING_KEY_FILE', async ({
    slack,
    dir,
    postgres,
    skip,
  }) => {
    if (!postgres.up) skip();
    const { code, ran, errors } = await start({ slack, dir }, { STORE_URL: await postgres.url() });
    expect(ran).toBe(false);
    expect(code).toBe(1);
    expect(errors.map((entry) => entry.message)).toEqual([
      expect.stringMatching(
        /^CNGN_AUDIT_SIGNING_KEY_FILE: required on a postgres:\/\/ store, which replicas share: the bot makes no audit signing key there/,
      ),
    ]);
    expect(existsSync(join(dir, 'data', 'audit-signing-key.pem'))).toBe(false);
  }, 60_000);

  it('is used when an earlier start left one in ./data, so a running deployment keeps starting', async ({
    slack,
    dir,
    postgres,
    skip,
  }) => {
    if (!postgres.up) skip();
    mkdirSync(join(dir, 'data'), { recursive: true });
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(
      join(dir, 'data', 'audit-signing-key.pem'),
      privateKey.export({ format: 'pem', type: 'pkcs8' }),
      { mode: 0o600 },
    );
    const { ran, errors, stderr } = await start({ slack, dir }, { STORE_URL: await postgres.url() });
    expect(errors, stderr).toEqual([]);
    expect(ran).toBe(true);
    rmSync(join(dir, 'data'), { recursive: true });
  }, 60_000);

  it('is still made beside a SQLite store, which lives on this disk', async ({ slack, dir }) => {
    const store = join(dir, 'sqlite', 'desk.sqlite');
    const { ran, errors, stderr } = await start({ slack, dir }, { STORE_URL: `sqlite://${store}` });
    expect(errors, stderr).toEqual([]);
    expect(ran).toBe(true);
    expect(existsSync(join(dir, 'sqlite', 'desk.audit-signing-key.pem'))).toBe(true);
  }, 60_000);
});
