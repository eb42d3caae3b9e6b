import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from './raw-client.js';

let child: ChildProcess | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    // One node process (tsx as a loader), so its exit means its clean-up has run.
    process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  }
  child = undefined;
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

describe('npm run sandbox -- --json', () => {
  it('prints one JSON line whose credentials work for an independent client, and stops on SIGTERM', async () => {
    child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/sandbox/cli.ts', '--json', '--settle-ms', '50'],
      {
        cwd: process.cwd(),
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      },
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

  it('uses the credentials it is given', async () => {
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/sandbox/cli.ts',
        '--json',
        '--api-key',
        'cngn_live_fixed',
        '--encryption-key',
        'fixed-key',
      ],
      { cwd: process.cwd(), detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const credentials = JSON.parse(await firstLine(child)) as Record<string, string>;
    expect(credentials).toMatchObject({ apiKey: 'cngn_live_fixed', encryptionKey: 'fixed-key' });
  });
});
