import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { test as base, describe, expect } from 'vitest';
import { bundled } from '../support/node-entry.js';
import { RawClient } from './raw-client.js';

/**
 * `spawned(child)` keeps a process the test started and stops it (or what is left of its process
 * group) after the test.
 */
const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('spawned', async ({}, { onCleanup }) => {
    let child: ChildProcess | undefined;
    onCleanup(async () => {
      const pid = child?.pid;
      if (child && pid && child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        // One node process, so its exit means its clean-up has run.
        process.kill(-pid, 'SIGTERM');
        await exited;
      } else if (pid) {
        // npm is gone; whatever it started, if anything, is still in its process group.
        try {
          process.kill(-pid, 'SIGTERM');
        } catch {
          // the group is empty
        }
      }
    });
    return (started: ChildProcess): ChildProcess => {
      child = started;
      return started;
    };
  });

function firstLine(process: ChildProcess): Promise<string> {
  const lines = createInterface({ input: process.stdout! });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    process.once('exit', (code) => reject(new Error(`sandbox exited with ${code} before printing`)));
  });
}

// The command's code bundled (support/node-entry.ts) and run with plain node, which starts in a
// fraction of tsx's time; the tests through npm below run it as `npm run sandbox` does, with tsx.
describe('npm run sandbox -- --json', () => {
  test('prints one JSON line whose credentials work for an independent client, and stops on SIGTERM', async ({
    spawned,
  }) => {
    const child = spawned(
      spawn(process.execPath, [await bundled('src/sandbox/cli.ts'), '--json', '--settle-ms', '50'], {
        cwd: process.cwd(),
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    const line = await firstLine(child);
    const credentials = JSON.parse(line) as Record<string, string>;
    expect(Object.keys(credentials).sort()).toEqual(
      ['apiKey', 'baseUrl', 'encryptionKey', 'privateKeyFile', 'webhookSecret'].sort(),
    );
    expect(credentials.apiKey).toMatch(/^cngn_test_/);
    const client = new RawClient(
      credentials.baseUrl ?? '',
      credentials.apiKey ?? '',
      credentials.encryptionKey ?? '',
      readFileSync(credentials.privateKeyFile ?? '', 'utf8'),
    );
    const balance = await client.get('/v1/api/balance');
    expect(balance.data).toEqual([
      { asset_type: 'credit_alphanum4', asset_code: 'CNGN', balance: '1250000.00' },
    ]);
    const verified = await client.post<{ accountName: string }>('/v1/api/account/verify', {
      accountNumber: '0123456789',
      bankCode: '044',
    });
    expect(verified.data.accountName).toEqual(expect.any(String));

    const exited = once(child, 'exit');
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
    await expect(fetch(`${credentials.baseUrl}/v1/api/balance`)).rejects.toThrow();
    expect(existsSync(credentials.privateKeyFile ?? '')).toBe(false);
  });

  test('uses the credentials it is given', async ({ spawned }) => {
    const child = spawned(
      spawn(
        process.execPath,
        [
          await bundled('src/sandbox/cli.ts'),
          '--json',
          '--api-key',
          'cngn_live_fixed',
          '--encryption-key',
          'fixed-key',
        ],
        { cwd: process.cwd(), detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
      ),
    );
    const credentials = JSON.parse(await firstLine(child)) as Record<string, string>;
    expect(credentials).toMatchObject({ apiKey: 'cngn_live_fixed', encryptionKey: 'fixed-key' });
  });
});

/** Spawn npm the way a person or a tool would, in a process group of its own for clean-up. */
function npmRun(args: string[]): ChildProcess {
  return spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', ...args], {
    cwd: process.cwd(),
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
}

/** Poll until the sandbox no longer answers (bounded by the test's own timeout). */
async function untilGone(baseUrl: string, keyFile: string): Promise<void> {
  while (
    await fetch(`${baseUrl}/v1/api/balance`).then(
      () => true,
      () => false,
    )
  ) {
    await sleep(100);
  }
  while (existsSync(keyFile)) await sleep(50);
}

describe('through npm, as a user runs it', () => {
  test('`npm run -s sandbox -- --json` prints just the JSON line, and a SIGTERM to npm stops the sandbox', async ({
    spawned,
  }) => {
    const child = spawned(npmRun(['-s', 'sandbox', '--', '--json', '--settle-ms', '50']));
    const credentials = JSON.parse(await firstLine(child)) as Record<string, string>;
    const client = new RawClient(
      credentials.baseUrl ?? '',
      credentials.apiKey ?? '',
      credentials.encryptionKey ?? '',
      readFileSync(credentials.privateKeyFile ?? '', 'utf8'),
    );
    expect((await client.get('/v1/api/balance')).httpStatus).toBe(200);

    process.kill(child.pid as number, 'SIGTERM'); // npm alone, not its process group
    await untilGone(credentials.baseUrl ?? '', credentials.privateKeyFile ?? '');
  });

  test('`npm run sandbox -- --json` has exactly one line starting with `{`, and a killed npm takes the sandbox along', async ({
    spawned,
  }) => {
    const child = spawned(npmRun(['sandbox', '--', '--json']));
    const lines: string[] = [];
    const reader = createInterface({ input: child.stdout! });
    const closed = once(reader, 'close');
    const jsonLine = new Promise<string>((resolve) => {
      reader.on('line', (line) => {
        lines.push(line);
        if (line.startsWith('{')) resolve(line);
      });
    });
    const credentials = JSON.parse(await jsonLine) as Record<string, string>;
    expect(credentials.apiKey).toMatch(/^cngn_test_/);

    process.kill(child.pid as number, 'SIGKILL'); // npm dies without passing anything on
    await untilGone(credentials.baseUrl ?? '', credentials.privateKeyFile ?? '');
    await closed; // every process that held the output has exited
    expect(lines.filter((line) => line.startsWith('{'))).toHaveLength(1);
  });
});
