// The process itself: a stray promise rejection is logged and the bot keeps serving; an uncaught
// exception is logged (redacted), the bot stops and its store closes, and the process exits 1 for its
// supervisor to restart. Either during start-up is one JSON line, then exit 1. A start-up check that
// Slack fails (a refused token, a channel that does not exist) ends it with status 1 and one JSON line
// naming the fix, never a stack. A failure once the settings were read is logged with the configured
// secrets redacted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { FakeSlack } from './support/fake-slack.js';
import { slackTest as it } from './support/file-slack.js';
import { bundled, bundledMain } from './support/node-entry.js';

/**
 * Starts the bot (dist/main.js, as `npm start` does; support/node-entry.ts) against `slack`, with
 * `preload`'s bundle loaded first if given: the child, what it has written on stderr so far, and its exit.
 */
async function spawnMain(slack: FakeSlack, env: Record<string, string>, preload?: string) {
  const imports = preload ? ['--import', await bundled(preload)] : [];
  const child = spawn(process.execPath, [...imports, await bundledMain()], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      ADMIN_PORT: '0',
      STORE_URL: 'memory://',
      LOG_LEVEL: 'info',
      SLACK_BOT_TOKEN: 'xoxb-main-test',
      SLACK_SIGNING_SECRET: 'main-test-signing-secret',
      SLACK_API_URL: slack.apiUrl,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const out = { child, stderr: '', exited: once(child, 'exit') as Promise<[number | null, string | null]> };
  child.stderr?.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  return out;
}

/** Runs the bot to its exit: its status and what it wrote on stderr. */
async function runToExit(slack: FakeSlack, env: Record<string, string>, preload?: string) {
  const run = await spawnMain(slack, env, preload);
  const [code] = await run.exited;
  return { code, stderr: run.stderr };
}

type Entry = Record<string, unknown>;

/** Runs the bot with `preload` (if any) in a child; resolves with its exit code and its log lines. */
async function runMain(
  slack: FakeSlack,
  preload: string | undefined,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; entries: Entry[] }> {
  const { code, stderr } = await runToExit(slack, env, preload);
  const entries = stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Entry);
  return { code, stderr, entries };
}

/**
 * Runs the bot to a start that fails, checking stderr holds nothing but JSON lines (Node's own
 * printout, a stack or the source line it failed on, never appears); its error entries too.
 */
async function failedStart(
  slack: FakeSlack,
  preload: string | undefined,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; entries: Entry[]; errors: Entry[] }> {
  const run = await runMain(slack, preload, env);
  expect(
    run.stderr
      .trim()
      .split('\n')
      .filter((line) => !line.startsWith('{')),
  ).toEqual([]);
  return { ...run, errors: run.entries.filter((entry) => entry.level === 'error') };
}

describe('cngn-desk under faults nobody caught', () => {
  it('logs a stray rejection and keeps running; on an uncaught exception stops cleanly and exits 1', async ({
    slack,
  }) => {
    const { code, stderr, entries } = await runMain(slack, 'test/support/faults-after-start.ts');
    const index = (message: RegExp) => entries.findIndex((e) => message.test(String(e.message)));

    const rejection = entries[index(/unhandled promise rejection/)];
    expect(rejection).toMatchObject({
      level: 'error',
      error: {
        type: 'Error',
        message: 'a stray rejection',
        stack: expect.stringContaining('faults-after-start.ts'),
      },
    });
    const crash = entries[index(/uncaught exception/)];
    expect(crash).toMatchObject({ level: 'error', error: { message: expect.stringContaining('boom near') } });
    expect(stderr).not.toContain('cngn_test_leakedkey123');
    // Still running after the rejection (the exception came later), and stopped before exiting.
    expect(index(/unhandled promise rejection/)).toBeLessThan(index(/uncaught exception/));
    expect(entries[index(/^stopped$/)]).toMatchObject({ reason: 'uncaughtException' });
    expect(index(/uncaught exception/)).toBeLessThan(index(/^stopped$/));
    expect(code).toBe(1);
  });

  it('logs a rejection during start-up as one JSON line with its stack, and exits 1', async ({ slack }) => {
    const { code, errors } = await failedStart(slack, 'test/support/fault-during-start.ts');
    expect(code).toBe(1);
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'unhandled promise rejection',
        error: expect.objectContaining({
          message: 'failed while starting',
          stack: expect.stringContaining('fault-during-start.ts'),
        }),
      }),
    ]);
  });
});

describe('cngn-desk when a store driver cannot load', () => {
  it('logs a missing SQLite binding as one JSON line with its cause, and exits 1', async ({
    slack,
    defer,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-desk-main-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    // Loaded after main.ts's handlers are in place, so it is logged as JSON like any other fault.
    const { code, errors } = await failedStart(slack, 'test/support/sqlite-binding-missing.ts', {
      STORE_URL: `sqlite://${join(dir, 'desk.sqlite')}`,
    });
    expect(code).toBe(1);
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'cngn-desk could not start',
        error: expect.objectContaining({
          message: expect.stringContaining('Could not locate the bindings'),
        }),
      }),
    ]);
  });

  it('redacts the configured secrets from a failure after the settings were read', async ({
    slack,
    defer,
  }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-desk-main-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const { code, stderr, errors } = await failedStart(slack, 'test/support/driver-quotes-secret.ts', {
      STORE_URL: `sqlite://${join(dir, 'desk.sqlite')}`,
    });
    expect(code).toBe(1);
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'cngn-desk could not start',
        error: expect.objectContaining({
          message: expect.stringContaining('sqlite3 could not load; its environment: SLACK_SIGNING_SECRET='),
        }),
      }),
    ]);
    expect(stderr).not.toContain('main-test-signing-secret');
  });
});

describe('cngn-desk when the start-up check against Slack fails', () => {
  it('exits 1 with one JSON line, and no stack, when Slack refuses the bot token', async ({
    slack,
    defer,
  }) => {
    slack.reset();
    defer(() => slack.reset()); // the file's other tests start on a Slack that answers as usual
    slack.on('auth.test', () => ({ body: { ok: false, error: 'invalid_auth' } }));
    const { code, stderr, entries } = await failedStart(slack, undefined);
    expect(code).toBe(1);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 'error',
      message:
        "Slack does not accept SLACK_BOT_TOKEN (invalid_auth): copy the Bot User OAuth Token (xoxb-…) again from the app's OAuth & Permissions page",
    });
    expect(stderr).not.toContain('xoxb-main-test');
    // Asked once, by the check; nothing else reached Slack.
    expect(slack.calls.map((c) => c.method)).toEqual(['auth.test']);
  });

  it('exits 1 with one line naming the setting when the approvals channel does not exist', async ({
    slack,
    defer,
  }) => {
    slack.reset();
    defer(() => slack.reset());
    slack.on('conversations.info', (call) =>
      call.body.channel === 'C0NOSUCH' ? { body: { ok: false, error: 'channel_not_found' } } : undefined,
    );
    const { code, stderr, errors } = await failedStart(slack, undefined, {
      CNGN_APPROVALS_CHANNEL: 'C0NOSUCH',
      CNGN_APPROVERS: 'U0ONE',
      CNGN_APPROVAL_TIERS: '0:1',
    });
    expect(code).toBe(1);
    expect(errors.map((entry) => entry.message)).toEqual([
      "channel C0NOSUCH (CNGN_APPROVALS_CHANNEL) does not exist, or is private and the bot is not in it: set CNGN_APPROVALS_CHANNEL to the channel's ID (channel name → About), or /invite @cngn-desk in that private channel",
    ]);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('cngn-desk when STORE_URL cannot be read', () => {
  it('exits 1 with one line naming what to fix, without the password or the URL', async ({ slack }) => {
    const url = 'redis://desk:s3cretpass@localhost:99999';
    const { code, stderr, errors } = await failedStart(slack, undefined, { STORE_URL: url });
    expect(code).toBe(1);
    expect(errors).toEqual([
      expect.objectContaining({
        message: 'cngn-desk could not start',
        error: expect.objectContaining({
          message: expect.stringMatching(/^STORE_URL is not a Redis URL the client can read .*port/),
        }),
      }),
    ]);
    expect(stderr).not.toContain('s3cretpass');
    expect(stderr).not.toContain('desk:s3');
    expect(stderr).not.toContain(url);
  });
});

describe('cngn-desk told to stop while it starts', () => {
  it('stops once start-up ends, through the normal stop, with a line and status 0', async ({
    slack,
    defer,
  }) => {
    slack.reset();
    defer(() => slack.reset());
    const check = slack.hold('auth.test');
    const run = await spawnMain(slack, {});
    await check.arrived; // the start-up check is under way
    run.child.kill('SIGTERM');
    // Until the bot says it heard the signal (or it has gone): a signal sent before its handler
    // would be Node's default, the process gone with no line.
    const heard = new Promise<void>((resolve) => {
      const look = () => run.stderr.includes('stop asked during start-up') && resolve();
      run.child.stderr?.on('data', look);
      look();
    });
    await Promise.race([heard, run.exited]);
    check.release();
    const [code, signal] = await run.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    const messages = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { message: string }).message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'stop asked during start-up: stopping once it ends',
        'shutting down',
        'stopped',
      ]),
    );
  }, 30_000);
});
