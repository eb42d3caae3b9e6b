// The process itself: a stray promise rejection is logged and the bot keeps serving; an uncaught
// exception is logged (redacted), the bot stops and its store closes, and the process exits 1 for its
// supervisor to restart.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

describe('cngn-desk under faults nobody caught', () => {
  it('logs a stray rejection and keeps running; on an uncaught exception stops cleanly and exits 1', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './test/support/faults-after-start.ts', 'src/main.ts'],
      {
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
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    const entries = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const index = (message: RegExp) => entries.findIndex((e) => message.test(String(e.message)));

    const rejection = entries[index(/unhandled promise rejection/)];
    expect(rejection).toMatchObject({ level: 'error', error: 'Error: a stray rejection' });
    const crash = entries[index(/uncaught exception/)];
    expect(crash).toMatchObject({ level: 'error' });
    expect(String(crash?.error)).toContain('boom near');
    expect(stderr).not.toContain('cngn_test_leakedkey123');
    // Still running after the rejection (the exception came later), and stopped before exiting.
    expect(index(/unhandled promise rejection/)).toBeLessThan(index(/uncaught exception/));
    expect(entries[index(/^stopped$/)]).toMatchObject({ reason: 'uncaughtException' });
    expect(index(/uncaught exception/)).toBeLessThan(index(/^stopped$/));
    expect(code).toBe(1);
  }, 30_000);
});
