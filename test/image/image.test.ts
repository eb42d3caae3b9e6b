// The image as Docker builds and runs it (`npm run test:image`): built from the Dockerfile (on a
// stand-in base where no registry answers, scripts/image/build.sh), it runs read-only as uid 1000 and
// turns healthy; `compose down && up` finds the same signing key and the same requests; `docker stop`
// during a send the custody service holds lets the send finish; and it starts again on PostgreSQL.
// The containers share the host's network, so they reach the fake Slack, the sandbox standing in for
// the custody service, and PostgreSQL on 127.0.0.1. CNGN_DESK_TEST_IMAGE=<tag> tests an image already
// built (scripts/image/build.sh <tag>) instead of building one.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test as base, describe, expect } from 'vitest';
import { parse } from 'yaml';
import {
  APPROVALS_CHANNEL,
  APPROVERS,
  fileWithdrawal,
  freePort,
  REQUESTER,
  startReplica,
} from '../../prove/support.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { createStore } from '../../src/store/index.js';
import { FakeSlack } from '../support/fake-slack.js';
import { SIGNING_SECRET } from '../support/harness.js';
import { createTestDatabase } from '../support/postgres.js';
import { reviewInChannel, submitReview } from '../support/review.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILT = process.env.CNGN_DESK_TEST_IMAGE;
const TAG = BUILT || 'cngn-desk:image-test';
const BUILD_MS = 40 * 60_000;
const WITHDRAW = '/v1/api/withdraw';
const run = promisify(execFile);
const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim();
const compose = (file: string, project: string, ...args: string[]) =>
  run('docker-compose', ['-f', file, '-p', project, ...args], { encoding: 'utf8', timeout: 120_000 });

/** The settings of a bot on the sandbox, approvals on, nothing from this process's environment. */
async function botEnv({
  slack,
  sandbox,
}: {
  slack: FakeSlack;
  sandbox: Sandbox;
}): Promise<Record<string, string>> {
  return {
    PORT: String(await freePort()),
    // The admin listener (probes, metrics), where the image's health check asks.
    ADMIN_PORT: String(await freePort()),
    SLACK_BOT_TOKEN: 'xoxb-image-test',
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.apiUrl,
    CNGN_APPROVALS_CHANNEL: APPROVALS_CHANNEL,
    CNGN_APPROVERS: [...APPROVERS, REQUESTER].join(','),
    CNGN_APPROVAL_TIERS: '0:1',
    CNGN_BASE_URL: sandbox.baseUrl,
    CNGN_API_KEY: sandbox.apiKey,
    CNGN_ENCRYPTION_KEY: sandbox.encryptionKey,
    CNGN_PRIVATE_KEY: sandbox.privateKey,
    CNGN_WEBHOOK_SECRET: sandbox.webhookSecret,
    CNGN_RATE_LIMIT: '100000/60s',
  };
}

/** Waits, within a generous deadline, for Docker to call the container healthy. */
async function healthy(container: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const state = docker('inspect', '-f', '{{.State.Status}} {{.State.Health.Status}}', container);
    if (state === 'running healthy') return;
    if (!state.startsWith('running') || Date.now() > deadline) {
      throw new Error(`${container} is ${state}:\n${logs(container)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** What the container wrote (the bot writes JSON lines on stderr), every start of it. */
function logs(container: string): string {
  const { stdout, stderr } = spawnSync('docker', ['logs', container], { encoding: 'utf8' });
  return `${stdout}\n${stderr}`;
}

/** The container's log lines at error level. */
function errorLines(container: string): string[] {
  return logs(container)
    .split('\n')
    .filter((line) => line.startsWith('{') && /"level":"(error|fatal)"/.test(line));
}

/**
 * For the whole file: `image`, the image to test, built here unless CNGN_DESK_TEST_IMAGE names one
 * (`builtFrom`: the commit it was built from, which its label says); `work`, a folder the containers
 * may read; `slack`; `sandbox`, standing in for the custody service; `network`, the one the bot
 * offers, as its own client lists it; `projects`, the compose projects to take down; `database`, a
 * PostgreSQL database of the file's own; `containers`, the containers to remove (removed before the
 * database they use is dropped).
 */
const it = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('image', { scope: 'file' }, async ({}) => {
    if (spawnSync('docker', ['info'], { stdio: 'ignore' }).status !== 0) {
      throw new Error(
        'no Docker daemon answers (docker info): start one (dockerd) to build and run the image',
      );
    }
    if (BUILT) return { builtFrom: undefined };
    const builtFrom = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const built = spawnSync('sh', ['scripts/image/build.sh', TAG], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: BUILD_MS,
    });
    if (built.status !== 0) throw new Error(`the image did not build:\n${built.stderr}`);
    console.info(`built ${TAG} on ${built.stdout.trim()}`);
    return { builtFrom };
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('work', { scope: 'file' }, async ({}, { onCleanup }) => {
    const work = mkdtempSync(join(tmpdir(), 'cngn-desk-image-'));
    onCleanup(() => rmSync(work, { recursive: true, force: true }));
    chmodSync(work, 0o755);
    return work;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('slack', { scope: 'file' }, async ({}, { onCleanup }) => {
    const slack = await FakeSlack.start();
    onCleanup(() => slack.stop());
    return slack;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('sandbox', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sandbox = await startSandbox({ settleDelayMs: 3_600_000, rateLimit: false });
    onCleanup(() => sandbox.stop());
    return sandbox;
  })
  .extend('network', { scope: 'file' }, async ({ sandbox, slack }) => {
    const probe = await startReplica({ sandbox, slack, store: await createStore('memory://') });
    const found = (await probe.bot.client.getNetworks()).find((n) => !n.isDisabled);
    await probe.stop();
    await probe.store.close();
    if (!found) throw new Error('the sandbox offers no network');
    return found;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('projects', { scope: 'file' }, async ({}, { onCleanup }) => {
    const projects: [string, string][] = [];
    onCleanup(async () => {
      for (const [file, project] of projects) await compose(file, project, 'down', '-v').catch(() => {});
    });
    return projects;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('database', { scope: 'file' }, async ({}, { onCleanup }) => {
    const database = await createTestDatabase();
    onCleanup(() => database.drop());
    return database;
  })
  .extend('containers', { scope: 'file' }, async ({ database: _ }, { onCleanup }) => {
    const containers: string[] = [];
    onCleanup(() => {
      for (const container of containers)
        spawnSync('docker', ['rm', '-f', '-v', container], { stdio: 'ignore' });
    });
    return containers;
  });

// The image is built by the first of these tests to run: each may wait as long as a build takes.
describe('the image', { timeout: BUILD_MS }, () => {
  it('is labelled with the version and revision, runs as uid 1000, and holds no npm, build tools or leftovers', ({
    image: { builtFrom },
  }) => {
    const config = JSON.parse(docker('image', 'inspect', '-f', '{{json .Config}}', TAG)) as {
      User: string;
      Volumes: Record<string, unknown> | null;
      Labels: Record<string, string>;
    };
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(config.User).toBe('1000:1000');
    expect(config.Volumes ?? {}).toEqual({});
    expect(config.Labels['org.opencontainers.image.version']).toBe(version);
    expect(config.Labels['org.opencontainers.image.revision']).toMatch(
      new RegExp(`^${builtFrom ?? '[0-9a-f]{40}'}(-dirty)?$`),
    );
    expect(config.Labels['org.opencontainers.image.source']).toBeTruthy();
    // The same commit in the release, which cngn_build_info and /healthz report.
    expect(docker('run', '--rm', '--entrypoint', 'cat', TAG, '/app/REVISION')).toBe(
      config.Labels['org.opencontainers.image.revision'],
    );
    const inside = docker(
      'run',
      '--rm',
      '--entrypoint',
      'sh',
      TAG,
      '-c',
      'id -u; for tool in npm npx corepack yarn g++ make; do command -v $tool; done; ls /app/node_modules | grep -x -e esbuild -e node-emoji; ls -A /app/node_modules/sqlite3/build/Release; true',
    );
    expect(inside.split('\n')).toEqual(['1000', 'node_sqlite3.node']);
  });

  it('runs read-only as uid 1000, turns healthy, and after compose down && up keeps its signing key and its requests', async ({
    image: _,
    work,
    slack,
    sandbox,
    network,
    projects,
  }) => {
    const project = `cngn-desk-image-${randomBytes(4).toString('hex')}`;
    const file = join(work, 'compose.json');
    const env = await botEnv({ slack, sandbox });
    // compose.yaml's bot as shipped (its volumes, read-only root, tmpfs, init, grace period), on the
    // host's network and without PostgreSQL: the default SQLite store and the key the bot makes
    // beside it, wherever compose.yaml puts /app/data.
    const shipped = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8')) as {
      services: { bot: Record<string, unknown> };
      volumes?: Record<string, unknown>;
    };
    const kept = ['read_only', 'tmpfs', 'init', 'stop_grace_period', 'volumes', 'user'];
    const bot = Object.fromEntries(
      Object.entries(shipped.services.bot).filter(([key]) => kept.includes(key)),
    );
    const recipe = {
      services: {
        bot: { ...bot, image: TAG, network_mode: 'host', environment: env, healthcheck: { interval: '2s' } },
      },
      volumes: Object.fromEntries(Object.keys(shipped.volumes ?? {}).map((name) => [name, {}])),
    };
    writeFileSync(file, JSON.stringify(recipe));
    projects.push([file, project]);
    const container = `${project}_bot_1`;
    const key = () =>
      docker(
        'exec',
        container,
        'node',
        '-e',
        "process.stdout.write(require('fs').readFileSync('/app/data/cngn-desk.audit-signing-key.pem','utf8'))",
      );

    await compose(file, project, 'up', '-d');
    await healthy(container);
    expect(docker('exec', container, 'id', '-u')).toBe('1000');
    // A figure for docs/kubernetes.md's resources, not a check: the container's memory once started.
    console.info(
      `memory once healthy: ${docker('stats', '--no-stream', '--format', '{{.MemUsage}}', container)}`,
    );
    expect(spawnSync('docker', ['exec', container, 'touch', '/app/dist/x']).status).not.toBe(0);
    const sender = { baseUrl: `http://127.0.0.1:${env.PORT}`, signingSecret: SIGNING_SECRET };
    const id = await fileWithdrawal(sender, slack, network, '701.25');
    const before = key();
    expect(logs(container)).toContain('made an audit signing key');

    await compose(file, project, 'down');
    await compose(file, project, 'up', '-d');
    await healthy(container);
    expect(key()).toBe(before);
    // down removed the container: these are the new one's lines, which found the key.
    expect(logs(container)).not.toContain('made an audit signing key');
    expect(errorLines(container)).toEqual([]);
    // The request filed before is there, and its review opens.
    const review = await reviewInChannel(sender, slack, id, APPROVERS[0], APPROVALS_CHANNEL);
    expect(review.view).toBeDefined();
  });

  it('lets a held send finish on docker stop, then starts again on PostgreSQL with the key it is given', async ({
    image: _,
    work,
    slack,
    sandbox,
    network,
    database,
    containers,
  }) => {
    const secrets = join(work, 'secrets');
    mkdirSync(secrets, { mode: 0o755 });
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' });
    writeFileSync(join(secrets, 'audit_signing_key.pem'), pem, { mode: 0o644 });
    const env: Record<string, string> = { ...(await botEnv({ slack, sandbox })), STORE_URL: database.url };
    const container = `cngn-desk-image-pg-${randomBytes(4).toString('hex')}`;
    containers.push(container);
    docker(
      'run',
      '-d',
      '--name',
      container,
      '--network',
      'host',
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--init',
      '--health-interval',
      '2s',
      // compose.yaml's stop_grace_period: the drain of a send takes up to 15 s.
      '--stop-timeout',
      '30',
      '-v',
      '/app/data', // the marks and the archive: a volume of its own, the root being read-only
      '-v',
      `${secrets}:/run/secrets:ro`,
      '-e',
      'CNGN_AUDIT_SIGNING_KEY_FILE=/run/secrets/audit_signing_key.pem',
      ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
      TAG,
    );
    await healthy(container);
    const sender = { baseUrl: `http://127.0.0.1:${env.PORT}`, signingSecret: SIGNING_SECRET };
    const id = await fileWithdrawal(sender, slack, network, '702.50');
    const held = sandbox.hold('POST', WITHDRAW);
    const review = await reviewInChannel(sender, slack, id, APPROVERS[0], APPROVALS_CHANNEL);
    if (!review.view) throw new Error(`no review opened: ${String(review.told?.body.text)}`);
    void submitReview(sender, review.view, APPROVERS[0]).catch(() => {});
    await held.arrived;

    const stopping = run('docker', ['stop', container], { timeout: 60_000 });
    // The custody service answers 8 s into the stop, within the bot's own 10 s wait for a call under
    // way; the bot records the answer, then closes. Its stop can take up to 15 s in all (main.ts), so
    // compose.yaml gives it 30 s, as this run does, not Docker's default 10 s.
    const deadline = Date.now() + 30_000;
    while (!logs(container).includes('shutting down') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    held.release();
    await stopping;
    // It waited for the answer and recorded it before it exited: nothing left for the next start to
    // find as outcome unknown.
    expect(docker('inspect', '-f', '{{.State.ExitCode}}', container)).toBe('0');
    expect(sandbox.count('POST', WITHDRAW)).toBe(1);
    expect(logs(container)).not.toMatch(/UNDER WAY at shutdown|not recorded before shutdown/);
    expect(logs(container)).toContain('"message":"stopped"');
    expect(errorLines(container)).toEqual([]);

    docker('start', container);
    await healthy(container);
    const sent = (call: { body: Record<string, unknown> }) => {
      const text = JSON.stringify(call.body);
      return call.body.channel === APPROVALS_CHANNEL && text.includes(id) && /\bSent\b/.test(text);
    };
    await slack.waitFor('chat.update', sent, 60_000);
    expect(errorLines(container)).toEqual([]);
    expect(logs(container)).not.toMatch(/outcome unknown/i);
    expect(sandbox.count('POST', WITHDRAW)).toBe(1);
  });
});
