// The container recipe's steps (scripts/release.sh, which the Dockerfile runs) outside a container: in
// a clean copy of the tree, as an unprivileged user, `deps` installs and `build` bundles, and the release it
// leaves runs on PostgreSQL with nothing of the tree beside it. Run by `npm run test:release` (minutes:
// npm ci, and sqlite3 compiled where no prebuilt binary can be fetched), not by `npm test`.
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { freePort } from './slack/approvals/support.js';
import { slackTest } from './support/file-slack.js';
import { createTestDatabase, postgresAvailable } from './support/postgres.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Who builds and runs the release when the tests run as root (created when absent). */
const RELEASE_USER = 'cngn-desk-release';
const BUILD_MS = 15 * 60_000;

// No PostgreSQL here: under CI=true the file fails; otherwise it is skipped with one notice on stderr.
const hasPostgres = await postgresAvailable();

/** The user the steps run as: a system user of their own under root, or whoever runs the tests. */
function unprivileged(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  if (spawnSync('id', ['-u', RELEASE_USER]).status !== 0) {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', RELEASE_USER]);
  }
  const id = (flag: string) => Number(execFileSync('id', [flag, RELEASE_USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The tree as a fresh clone has it, plus files not yet committed: tracked and unignored files only. */
function copyTree(to: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && file !== 'node_modules' && !file.startsWith('node_modules/'));
  for (const file of files) {
    const from = join(ROOT, file);
    if (!existsSync(from) || !lstatSync(from).isFile()) continue; // deleted, not yet committed
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(from, join(to, file));
  }
}

/** The environment of every step: nothing of this process's but PATH, and npm kept quiet and offline-friendly. */
function stepEnv(home: string, cache: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    npm_config_cache: cache,
    npm_config_update_notifier: 'false',
    ...extra,
  };
  // The running Node's own headers, when it has them, so node-gyp (sqlite3) never downloads them.
  const prefix = dirname(dirname(process.execPath));
  if (existsSync(join(prefix, 'include', 'node', 'node_version.h'))) env.npm_config_nodedir = prefix;
  return env;
}

/** Collects the bot's log (stderr, JSON lines); resolves with its URL once it runs. */
function runningUrl(child: ChildProcess, log: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!child.stderr) throw new Error('no stderr to read');
    createInterface({ input: child.stderr }).on('line', (line) => {
      log.push(line);
      if (!line.startsWith('{')) return;
      // The admin port's URL: the probes are there.
      const entry = JSON.parse(line) as { message?: string; admin?: string };
      if (entry.message === 'cngn-desk is running' && entry.admin) resolve(entry.admin);
    });
    child.on('exit', () => reject(new Error(`the release stopped before it ran:\n${log.join('\n')}`)));
  });
}

/**
 * For the whole file: `release`, the release built once by scripts/release.sh's `deps` and `build` in
 * a clean copy of the tree, as `user` (`app`: the release, the tree it came from removed; `home` and
 * `cache`: the steps' home and npm cache); `database`, a PostgreSQL database of the file's own; `slack`.
 */
const it = slackTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('release', { scope: 'file' }, async ({}, { onCleanup }) => {
    const user = unprivileged();
    const work = mkdtempSync(join(tmpdir(), 'cngn-desk-release-'));
    onCleanup(() => rmSync(work, { recursive: true, force: true }));
    chmodSync(work, 0o755);
    const tree = join(work, 'tree');
    const app = join(work, 'app');
    const home = join(work, 'home');
    // Kept between runs (the packages npm fetched), owned by the user the steps run as.
    const cache = join(tmpdir(), `cngn-desk-release-npm-cache-${user?.uid ?? process.getuid?.() ?? 'user'}`);
    for (const dir of [tree, app, home, cache]) mkdirSync(dir, { recursive: true });
    copyTree(tree);
    if (user) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, tree, app, home, cache]);
    for (const step of [['deps'], ['build', app]]) {
      const run = spawnSync('sh', ['scripts/release.sh', ...step], {
        cwd: tree,
        env: stepEnv(home, cache),
        ...user,
        encoding: 'utf8',
        timeout: BUILD_MS,
      });
      if (run.status !== 0) {
        throw new Error(
          `scripts/release.sh ${step[0]} failed (${run.status}):\n${run.stdout}\n${run.stderr}`,
        );
      }
    }
    // The release runs with nothing of the tree it was built from.
    rmSync(tree, { recursive: true, force: true });
    return { user, app, home, cache };
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('database', { scope: 'file' }, async ({}, { onCleanup }) => {
    const database = await createTestDatabase();
    onCleanup(() => database.drop());
    return database;
  });

// The release is built by the first of these tests to run: each may wait as long as a build takes.
describe.runIf(hasPostgres)('the release (scripts/release.sh)', { timeout: BUILD_MS }, () => {
  it('holds the bundle, its source maps and the production dependencies, no sources or dev tools', ({
    release: { app },
  }) => {
    expect(readdirSync(app).sort()).toEqual([
      'REVISION',
      'assets',
      'dist',
      'node_modules',
      'package-lock.json',
      'package.json',
      'scripts',
    ]);
    // The commit it was built from (a copy without .git: unknown), for cngn_build_info and /healthz.
    expect(readFileSync(join(app, 'REVISION'), 'utf8')).toMatch(/^([0-9a-f]{40}|unknown)\n$/);
    expect(readdirSync(join(app, 'dist'))).toEqual(expect.arrayContaining(['main.js', 'main.js.map']));
    expect(readdirSync(join(app, 'assets', 'fonts')).sort()).toEqual([
      'Inter-Regular.ttf',
      'Inter-SemiBold.ttf',
      'OFL.txt',
    ]);
    const installed = (name: string) => existsSync(join(app, 'node_modules', name, 'package.json'));
    expect(['sqlite3', 'pg', '@slack/bolt', '@resvg/resvg-js'].filter((name) => !installed(name))).toEqual(
      [],
    );
    // Build-time only: the bundler, and the emoji table the bundle carries.
    const devTools = [
      'vitest',
      'typescript',
      '@biomejs/biome',
      'dependency-cruiser',
      'playwright-core',
      'esbuild',
      'node-emoji',
    ];
    expect(devTools.filter(installed)).toEqual([]);
    // sqlite3's build leftovers (sources, objects, static libraries) stay behind: only its addon.
    expect(readdirSync(join(app, 'node_modules', 'sqlite3', 'build'))).toEqual(['Release']);
    expect(readdirSync(join(app, 'node_modules', 'sqlite3', 'build', 'Release'))).toEqual([
      'node_sqlite3.node',
    ]);
    expect(readdirSync(join(app, 'node_modules')).filter((name) => name.startsWith('@vitest'))).toEqual([]);
  });

  it('serves /livez and /readyz on PostgreSQL as an unprivileged user, passes its health check, and stops on SIGTERM', async ({
    release: { app, home, cache, user },
    database,
    slack,
  }) => {
    const bot = spawn('sh', [join(app, 'scripts', 'release.sh'), 'start'], {
      cwd: tmpdir(), // the script finds its release from its own path
      env: stepEnv(home, cache, {
        STORE_URL: database.url,
        PORT: '0',
        ADMIN_PORT: String(await freePort()), // 0 would be no admin listener: the probes are there
        SLACK_BOT_TOKEN: 'xoxb-release-test',
        SLACK_SIGNING_SECRET: 'release-test-secret',
        SLACK_API_URL: slack.apiUrl,
      }),
      ...user,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const log: string[] = [];
    try {
      const url = await runningUrl(bot, log);
      if (user) {
        const status = readFileSync(`/proc/${bot.pid}/status`, 'utf8');
        expect(status).toMatch(new RegExp(`^Uid:\\s+${user.uid}\\s`, 'm'));
      }
      expect((await fetch(`${url}/livez`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      const check = spawnSync('sh', [join(app, 'scripts', 'release.sh'), 'check'], {
        env: { PATH: process.env.PATH, ADMIN_PORT: new URL(url).port },
        ...user,
        timeout: 10_000,
      });
      expect(check.status).toBe(0);
      const exited = once(bot, 'exit');
      bot.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(log.some((line) => line.includes('"message":"stopped"'))).toBe(true);
    } finally {
      bot.kill('SIGKILL');
    }
  });
});
