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
 * Runs the bot (dist/main.js, as `npm start` does; support/node-entry.ts) against `slack` to its exit,
 * with `preload`'s bundle loaded first if given: its status and what it wrote on stderr.
 */
async function runToExit(slack: FakeSlack, env: Record<string, string>, preload?: string) {
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
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
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
