// Start-up with and without Slack: `npm start` with no settings runs the workbench on loopback and
// prints one line; a live service key refuses to start it; Slack credentials leave no workbench route.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { describe, expect } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { startSandbox } from '../../src/sandbox/index.js';
import {
  LIVE_KEY_REFUSAL,
  StartupRefused,
  start,
  wantsWorkbench,
  workbenchEnv,
} from '../../src/wiring/startup.js';
import { slackTest } from '../support/file-slack.js';
import { test as it } from '../support/fixtures.js';
import { bundledMain } from '../support/node-entry.js';
import { benchTest, quietEnv, startBench, TREASURY } from '../support/workbench-bench.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What `npm start` runs, dist/main.js (built unless fresh, support/node-entry.ts), with only the given
 * environment, plus PATH so node is found.
 */
async function npmStart(env: Record<string, string>): Promise<{
  child: ChildProcess;
  stdout: string[];
  stderr: () => string;
}> {
  const child = spawn(process.execPath, [await bundledMain()], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  let err = '';
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    partial += chunk.toString('utf8');
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    stdout.push(...lines);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return { child, stdout, stderr: () => err };
}

async function until<T>(get: () => T | undefined, what: string, timeoutMs = 50_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('npm start with no Slack settings', () => {
  // npm start builds the bundle first when a source changed (build.test.ts may be building it too):
  // seconds when quiet, more with every core busy; the cap matches `until`'s (not a timing assertion).
  it('prints exactly one line, the workbench URL, serves the page there, and stops cleanly', {
    timeout: 60_000,
  }, async () => {
    const run = await npmStart({ PORT: '0', ADMIN_PORT: '0', STORE_URL: 'memory://', LOG_LEVEL: 'silent' });
    try {
      const line = await until(
        () => run.stdout.find((l) => l.startsWith('Workbench:')),
        'the workbench line',
      );
      expect(line).toMatch(/^Workbench: open http:\/\/127\.0\.0\.1:\d+$/);
      const url = line.slice('Workbench: open '.length);
      const page = await request(`${url}/`);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(await page.body.text()).toMatch(/LOCAL WORKBENCH/);
      const exited = once(run.child, 'exit');
      run.child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(run.stdout.filter((l) => l.trim())).toEqual([line]);
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  });

  it('refuses to start with a live service key, saying why in one sentence', async () => {
    const run = await npmStart({
      PORT: '0',
      ADMIN_PORT: '0',
      STORE_URL: 'memory://',
      CNGN_API_KEY: 'cngn_live_abcdef0123456789',
    });
    const [code] = await once(run.child, 'exit');
    expect(code).toBe(1);
    const lines = run.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ level: 'error', message: LIVE_KEY_REFUSAL });
    expect(run.stdout.join('')).toBe('');
  });
});

describe('start-up wiring', () => {
  it('configures the bot for the demo users, while an operator setting wins', async () => {
    const env = workbenchEnv(
      { CNGN_ALERTS_CHANNEL: 'C0MINE', CNGN_AUDITORS: 'U0ADA' },
      'secret',
      'xoxb-workbench-t',
    );
    expect(env).toMatchObject({
      CNGN_APPROVALS_CHANNEL: 'C0APPROVALS',
      CNGN_ALERTS_CHANNEL: 'C0MINE',
      CNGN_APPROVERS: 'U0BOLA,U0CHIDI',
      CNGN_READERS: 'U0ADA,U0BOLA,U0CHIDI,U0DAYO,U0EFE',
      CNGN_REQUESTERS: 'U0ADA,U0BOLA,U0CHIDI',
      CNGN_AUDITORS: 'U0ADA',
      SLACK_SIGNING_SECRET: 'secret',
    });
    expect(
      workbenchEnv({ CNGN_APPROVER_GROUP: 'S0APPROVERS' }, 's', 'xoxb-workbench-t').CNGN_APPROVERS,
    ).toBeUndefined();
    expect(wantsWorkbench({})).toBe(true);
    expect(wantsWorkbench({ SLACK_BOT_TOKEN: ' ' })).toBe(true);
    expect(wantsWorkbench({ SLACK_SIGNING_SECRET: 'x' })).toBe(false);
    // A token given as a file means Slack as much as the token itself does.
    expect(wantsWorkbench({ SLACK_BOT_TOKEN_FILE: '/run/secrets/slack_bot_token' })).toBe(false);
  });

  it('a half Slack set-up is a configuration problem, not the workbench', async () => {
    await expect(start({ ...quietEnv, SLACK_SIGNING_SECRET: 'shh' })).rejects.toThrow(
      /SLACK_BOT_TOKEN: required/,
    );
  });

  it('with no Slack setting, other settings are still checked, and Slack is not asked for', async () => {
    const refused = await start({ ...quietEnv, PORT: 'eighty' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConfigError);
    expect(String((refused as ConfigError).problems)).toMatch(/^PORT: /);
    expect((refused as ConfigError).problems.join('\n')).not.toMatch(/SLACK_/);
  });

  it('the live-key refusal comes before anything starts', async () => {
    await expect(start({ ...quietEnv, CNGN_API_KEY: 'cngn_live_x' })).rejects.toBeInstanceOf(StartupRefused);
  });

  it('refuses a live key given as a file too', async ({ defer }) => {
    const dir = mkdtempSync(join(tmpdir(), 'cngn-live-key-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'api_key'), 'cngn_live_from_a_file\n');
    await expect(start({ ...quietEnv, CNGN_API_KEY_FILE: join(dir, 'api_key') })).rejects.toBeInstanceOf(
      StartupRefused,
    );
  });
});

// One bench for the whole describe (benchTest's `bench`, stopped after the file's last test).
describe('the workbench running', () => {
  benchTest('runs the bot with approvals on for Bola and Chidi and the demo channels', ({ bench }) => {
    expect(bench.lines).toEqual([`Workbench: open ${bench.url}`]);
    expect(bench.started.config.approvers).toEqual(['U0BOLA', 'U0CHIDI']);
    expect(bench.started.config.approvalsChannel).toBe('C0APPROVALS');
    expect(bench.started.config.alertsChannel).toBe('C0ALERTS');
    expect(bench.started.bot.approvals).toBeDefined();
  });

  benchTest('says SANDBOX and shows the sandbox panel with the embedded sandbox', async ({ bench }) => {
    const state = await bench.state('U0ADA');
    expect(state.environment).toBe('SANDBOX');
    expect(state.sandbox).toBe(true);
    expect(state.channels.map((c) => c.name)).toEqual(['treasury', 'approvals', 'alerts', 'cngn-desk']);
    expect(state.channels[3]).toEqual({ id: 'DU0ADA', name: 'cngn-desk', kind: 'dm' });
    expect(state.users.map((u) => u.name)).toEqual(['Ada', 'Bola', 'Chidi', 'Dayo', 'Efe', 'Gbenga']);
  });

  benchTest('is not reachable from another address of this machine', async ({ bench }) => {
    const port = Number(new URL(bench.url).port);
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!outside) {
      // No address but loopback here: nothing else could reach it anyway.
      expect(outside).toBeUndefined();
      return;
    }
    const socket = connect(port, outside);
    const outcome = await new Promise<string>((resolve) => {
      socket.once('connect', () => resolve('connected'));
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    socket.destroy();
    expect(outcome).toBe('ECONNREFUSED');
  });

  benchTest(
    'answers only requests naming a loopback host, and only JSON posts (no cross-site form, no DNS rebinding)',
    async ({ bench }) => {
      const rebound = await request(`${bench.url}/workbench/api/state?user=U0ADA`, {
        headers: { host: 'evil.example:3000' },
      });
      expect(rebound.statusCode).toBe(403);
      await rebound.body.dump();
      const page = await request(`${bench.url}/`, { headers: { host: 'evil.example' } });
      expect(page.statusCode).toBe(403);
      await page.body.dump();
      const before = (await bench.state('U0ADA')).version;
      const form = await request(`${bench.url}/workbench/api/message`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ user: 'U0ADA', channel: TREASURY, text: 'sent by another site' }),
      });
      expect(form.statusCode).toBe(415);
      await form.body.dump();
      expect((await bench.state('U0ADA')).version).toBe(before);
      const local = await request(`${bench.url}/`, {
        headers: { host: `localhost:${new URL(bench.url).port}` },
      });
      expect(local.statusCode).toBe(200);
      await local.body.dump();
    },
  );

  benchTest(
    'answers a state request for someone who is not a demo user with the reason',
    async ({ bench }) => {
      const response = await request(`${bench.url}/workbench/api/state?user=U0EVE`);
      expect(response.statusCode).toBe(400);
      expect(await response.body.text()).toMatch(/user: must be one of U0ADA/);
    },
  );
});

describe('with a cngn_test_ key', () => {
  it('runs, and the state says TEST with no sandbox panel', async ({ defer }) => {
    const service = await startSandbox({ rateLimit: false });
    defer(() => service.stop());
    const bench = await startBench({
      CNGN_API_KEY: service.apiKey,
      CNGN_ENCRYPTION_KEY: service.encryptionKey,
      CNGN_PRIVATE_KEY_FILE: service.privateKeyFile,
      CNGN_BASE_URL: service.baseUrl,
    });
    defer(() => bench.stop());
    const state = await bench.state('U0ADA');
    expect(state.environment).toBe('TEST');
    expect(state.sandbox).toBe(false);
    const pay = await bench.post('/sandbox/settle', {});
    expect(pay.answer.error).toMatch(/only with the embedded sandbox/);
    await bench.post('/command', { user: 'U0ADA', channel: TREASURY, text: '/cngn balance' });
    await bench.waitFor(
      'U0ADA',
      (s) => s.messages[TREASURY]?.find((m) => /TEST/.test(JSON.stringify(m.blocks))),
      'a TEST answer',
    );
  });
});

describe('with Slack credentials', () => {
  slackTest(
    'starts the bot as before, prints no workbench line, and no workbench route exists',
    async ({ slack, defer }) => {
      const lines: string[] = [];
      const started = await start(
        {
          ...quietEnv,
          SLACK_BOT_TOKEN: 'xoxb-real-looking',
          SLACK_SIGNING_SECRET: 'shh',
          SLACK_API_URL: slack.apiUrl,
        },
        { print: (line) => lines.push(line), adminOnAnyPort: true },
      );
      defer(() => started.stop());
      expect(started.workbench).toBeUndefined();
      expect(lines).toEqual([]);
      for (const path of [
        '/',
        '/workbench/app.js',
        '/workbench/api/state?user=U0ADA',
        '/workbench/api/events',
      ]) {
        const response = await request(`${started.url}${path}`);
        await response.body.dump();
        expect(response.statusCode, path).toBe(404);
      }
      const command = await request(`${started.url}/workbench/api/command`, { method: 'POST', body: '{}' });
      await command.body.dump();
      expect(command.statusCode).toBe(404);
      expect((await request(`${started.bot.adminUrl}/healthz`)).statusCode).toBe(200);
    },
  );
});

describe('stopping', () => {
  it('ends the open event streams, so a page left open does not hold the server up', async () => {
    const bench = await startBench();
    const response = await fetch(`${bench.url}/workbench/api/events`);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no stream');
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^data: \{"version":\d+\}/);
    await bench.stop(); // the server's close waits for open connections: without ending them it never returns
    expect((await reader.read()).done).toBe(true);
  });
});
