// The process itself: a stray promise rejection is logged and the bot keeps serving; an uncaught
// exception is logged (redacted), the bot stops and its store closes, and the process exits 1 for its
// supervisor to restart. Either during start-up is one JSON line, then exit 1.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

/** Runs src/main.ts with `preload` in a child; resolves with its exit code and its log lines. */
async function runMain(
  preload: string,
): Promise<{ code: number | null; stderr: string; entries: Array<Record<string, unknown>> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', preload, 'src/main.ts'], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      STORE_URL: 'memory://',
      LOG_LEVEL: 'info',
      SLACK_BOT_TOKEN: 'xoxb-main-test',
      SLACK_SIGNING_SECRET: 'main-test-signing-secret',
      // Nothing listens there: no call may leave this machine.
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  const entries = stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, stderr, entries };
}

describe('cngn-desk under faults nobody caught', () => {
  it('logs a stray rejection and keeps running; on an uncaught exception stops cleanly and exits 1', async () => {
    const { code, stderr, entries } = await runMain('./test/support/faults-after-start.ts');
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
  }, 30_000);

  it('logs a rejection during start-up as one JSON line with its stack, and exits 1', async () => {
    const { code, stderr, entries } = await runMain('./test/support/fault-during-start.ts');
    expect(code).toBe(1);
    // Nothing but JSON lines: Node's own printout (the source line it failed on) never appears.
    expect(
      stderr
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('{')),
    ).toEqual([]);
    expect(entries.filter((e) => e.level === 'error')).toEqual([
      expect.objectContaining({
        message: 'unhandled promise rejection',
        error: expect.objectContaining({
          message: 'failed while starting',
          stack: expect.stringContaining('fault-during-start.ts'),
        }),
      }),
    ]);
  }, 30_000);
});
