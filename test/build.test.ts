// The production build (scripts/build.mjs) and `npm start`: what serves Slack is one bundle of
// compiled JavaScript, built again only when a source changed; a module in it still finds files next
// to its TypeScript source; and a SIGTERM sent to npm alone stops the bot. What the production bundle
// holds is read from dist/, built by the suite's global set-up (test/support/build-main.ts) as
// `npm start` builds it; this file's own builds are of small entries of its own.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect } from 'vitest';
import { build, buildIfStale, isFresh } from '../scripts/build.mjs';
import { prebuiltAssets } from '../src/signing/assets.js';
import { freePort } from './slack/approvals/support.js';
import type { FakeSlack } from './support/fake-slack.js';
import { slackTest } from './support/file-slack.js';
import { bundledMain } from './support/node-entry.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Inside the project, so the bundle resolves the packages it leaves out (sqlite3) as dist/ does.
const WORK = `dist/test-build-${process.pid}`;
const BUILD_MS = 120_000;

const WHERE = `${WORK}/where/where.ts`;

/** What the build of `outfile` wrote beside it (its stamp's outputs; dist/ also keeps the build before's). */
function outputsBeside(outfile: string): string[] {
  const { outputs } = JSON.parse(readFileSync(`${outfile}.build.json`, 'utf8')) as { outputs: string[] };
  return outputs
    .map((path) => join(ROOT, path))
    .filter((path) => dirname(path) === dirname(outfile))
    .map((path) => relative(dirname(outfile), path));
}

/**
 * For the whole file: `work`, the folder WORK, made before the file's first test and removed after its
 * last; `slack`; `bundle`, the production bundle dist/main.js, fresh (`inputs`: what went in, from its
 * stamp, `dir`: its folder, `files`: the names of the files that build wrote there); `whereSource`,
 * WHERE, a module that says where it is.
 */
const it = slackTest
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('work', { scope: 'file', auto: true }, async ({}, { onCleanup }) => {
    mkdirSync(join(ROOT, WORK), { recursive: true });
    onCleanup(() => rmSync(join(ROOT, WORK), { recursive: true, force: true }));
    return WORK;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture needs from this pattern.
  .extend('bundle', { scope: 'file' }, async ({}) => {
    const outfile = await bundledMain();
    const stamp = JSON.parse(readFileSync(`${outfile}.build.json`, 'utf8')) as {
      inputs: Record<string, string>;
    };
    const inputs = Object.keys(stamp.inputs).map((path) => join(ROOT, path));
    return { inputs, outfile, dir: dirname(outfile), files: outputsBeside(outfile) };
  })
  .extend('whereSource', { scope: 'file' }, async ({ work: _ }) => {
    mkdirSync(join(ROOT, WORK, 'where'), { recursive: true });
    writeFileSync(
      join(ROOT, WHERE),
      'export const where = { url: import.meta.url, dirname: import.meta.dirname, filename: import.meta.filename };\n',
    );
    return WHERE;
  });

/** Collects the bot's log (stderr, JSON lines) into `log`; resolves with its URL once it runs. */
function runningUrl(child: ChildProcess, log: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    if (!child.stderr) throw new Error('no stderr to read');
    createInterface({ input: child.stderr }).on('line', (line) => {
      log.push(line);
      if (!line.startsWith('{')) return; // npm's banner
      // The admin port's URL: the probes are there.
      const entry = JSON.parse(line) as { message?: string; admin?: string };
      if (entry.message === 'cngn-desk is running' && entry.admin) resolve(entry.admin);
    });
    child.on('exit', () => reject(new Error(`the bot stopped before it ran:\n${log.join('\n')}`)));
  });
}

/** The admin listener on a port free now (ADMIN_PORT=0 would be none): the probes are there. */
async function botEnv(slack: FakeSlack): Promise<NodeJS.ProcessEnv> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SLACK_BOT_TOKEN: 'xoxb-build-test',
    SLACK_SIGNING_SECRET: 'build-test-secret',
    SLACK_API_URL: slack.apiUrl,
    STORE_URL: 'memory://',
    PORT: '0',
    ADMIN_PORT: String(await freePort()),
  };
}

/** A preload that reports on stderr every Intl formatter built, with where. */
const ICU_WATCH = `for (const name of ['DateTimeFormat', 'NumberFormat', 'Collator', 'PluralRules']) {
  Intl[name] = new Proxy(Intl[name], { construct(target, args) {
    process.stderr.write('ICU ' + name + '\\n' + new Error().stack + '\\n');
    return Reflect.construct(target, args);
  } });
}`;

/**
 * The bundle started with `env` (and the `preload`, if given) until it runs and its /healthz answers
 * 200, then stopped by SIGTERM, which it must end with 0; its stderr's lines meanwhile.
 */
async function startAndStop(outfile: string, env: NodeJS.ProcessEnv, preload?: string): Promise<string[]> {
  const log: string[] = [];
  const args = preload ? ['--import', `data:text/javascript,${encodeURIComponent(preload)}`] : [];
  // The log is on stderr.
  const bot = spawn(process.execPath, [...args, outfile], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    const url = await runningUrl(bot, log);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    bot.kill('SIGTERM');
    const [code] = await once(bot, 'exit');
    expect(code).toBe(0);
    return log;
  } finally {
    bot.kill('SIGKILL');
  }
}

// Built by the global set-up; the first of these tests to run builds it again should a source have
// changed since: each may wait as long as a build takes.
describe('the production bundle', { timeout: BUILD_MS }, () => {
  it('holds the bot and none of the tests', ({ bundle: { inputs } }) => {
    const files = inputs.map((path) => relative(ROOT, path).split('\\').join('/'));
    expect(files).toContain('src/main.ts');
    expect(files).toContain('src/slack/runtime/app.ts');
    expect(files.filter((file) => file.startsWith('test/') || file.startsWith('bench/'))).toEqual([]);
  });

  // V8 keeps a module's source text for the life of the process, at two bytes a character as soon as
  // one character is past U+00FF: before, a ₦ in a regular expression (and comments) doubled ~4 MB.
  it('holds the passkey pages for the browser, which a release serves without esbuild', async ({
    bundle: { inputs, dir },
  }) => {
    expect(inputs.map((path) => relative(ROOT, path))).toContain('src/signing/page/app.ts');
    const pages = await prebuiltAssets(pathToFileURL(`${join(dir, 'passkeys')}/`));
    expect(pages.js).toContain('navigator.credentials');
    expect(pages.css.length).toBeGreaterThan(0);
    expect(pages.html).toContain('/passkeys/assets/app.js');
  });

  it('holds only Latin-1 characters, so V8 keeps its source at one byte a character', ({
    bundle: { dir, files },
  }) => {
    const scripts = files.filter((file) => file.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(1);
    for (const file of scripts) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect({ file, beyondLatin1: text.match(/[\u0100-\u{10ffff}]/gu)?.slice(0, 5) ?? [] }).toEqual({
        file,
        beyondLatin1: [],
      });
    }
    // The escape still means ₦ where the source wrote it.
    expect(files.some((file) => readFileSync(join(dir, file), 'utf8').includes('/^\\u20a6/'))).toBe(true);
  });

  // SQLite too: its native binding loads once main.ts's error handlers are in place, so a binding
  // built for another Node is one JSON line, not Node's own printout.
  it('loads the SQLite, Redis and PostgreSQL stores and the workbench only on demand', ({
    bundle: { dir, files },
  }) => {
    const lazy = files.filter((file) => /^main-(sqlite|redis|postgres|workbench)-\w+\.js$/.test(file));
    expect(lazy.map((file) => file.split('-')[1]).sort()).toEqual([
      'postgres',
      'redis',
      'sqlite',
      'workbench',
    ]);
    // Every file main.js imports statically, and what those import in turn.
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const text = readFileSync(join(dir, file), 'utf8');
      for (const [, imported] of text.matchAll(/(?:\bfrom|\bimport)\s*"\.\/([^"]+\.js)"/g))
        visit(imported as string);
    };
    visit('main.js');
    expect(loaded.size).toBeGreaterThan(1);
    expect([...loaded].filter((file) => lazy.includes(file))).toEqual([]);
    const sqlite3 = /(?:\bfrom|\bimport|\brequire\()\s*"sqlite3"/;
    expect([...loaded].filter((file) => sqlite3.test(readFileSync(join(dir, file), 'utf8')))).toEqual([]);
    expect(readFileSync(join(dir, 'main.js'), 'utf8')).toContain('main-workbench-'); // by import()
  });

  // Each ICU service a process first uses maps megabytes of the node executable's locale and time-zone
  // data into its resident memory (a Lagos DateTimeFormat ~6 MB); the idle bot is held under 130 MB.
  // The bundle starts with a preload that reports every Intl formatter built (no loader).
  it('serves /healthz from plain node (a preload only), with the embedded sandbox, builds no Intl formatter while starting (ICU data stays out of an idle bot), and stops on SIGTERM', async ({
    bundle: { outfile },
    slack,
  }) => {
    const log = await startAndStop(outfile, await botEnv(slack), ICU_WATCH);
    expect(log.filter((line) => !line.startsWith('{')).join('\n')).not.toContain('ICU ');
  });

  // A restart finds its audit chain, marks and archive as it left them: checking them formats no time
  // unless they show a problem.
  it('builds no Intl formatter while restarting on SQLite with its signed audit chain', async ({
    bundle: { outfile },
    slack,
    work,
  }) => {
    const dir = join(ROOT, work, 'restart');
    mkdirSync(dir, { recursive: true });
    const env = {
      ...(await botEnv(slack)),
      STORE_URL: `sqlite://${join(dir, 'bot.sqlite')}`,
      CNGN_APPROVALS_CHANNEL: 'C0APPROVALS',
      CNGN_APPROVERS: 'U0APPROVER1,U0APPROVER2',
    };
    await startAndStop(outfile, env);
    const log = await startAndStop(outfile, { ...env, ADMIN_PORT: String(await freePort()) }, ICU_WATCH);
    expect(log.filter((line) => line.startsWith('{"level":"error"'))).toEqual([]);
    expect(log.filter((line) => !line.startsWith('{')).join('\n')).not.toContain('ICU ');
  });

  it('stops with status 1 and one JSON line, no minified source, when Slack refuses the bot token', async ({
    bundle: { outfile },
    slack,
  }) => {
    slack.on('auth.test', () => ({ body: { ok: false, error: 'invalid_auth' } }));
    try {
      const bot = spawn(process.execPath, [outfile], {
        cwd: ROOT,
        env: await botEnv(slack),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      bot.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const [code] = await once(bot, 'exit');
      expect(code).toBe(1);
      const lines = stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] ?? '')).toMatchObject({
        level: 'error',
        message: expect.stringContaining('invalid_auth'),
      });
    } finally {
      slack.reset();
    }
  });

  it('ships a linked source map beside every file, without the sources themselves', ({
    bundle: { dir, files },
  }) => {
    for (const file of files.filter((name) => name.endsWith('.js'))) {
      expect(readFileSync(join(dir, file), 'utf8')).toContain(`//# sourceMappingURL=${file}.map`);
      const map = JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as Record<string, unknown>;
      expect(map).toMatchObject({ version: 3 });
      expect(map.sourcesContent).toBeUndefined();
    }
  });

  // Node quotes the line an uncaught error was thrown on, and a line of the bundle is up to 1.7 MB.
  it('logs a failure at start-up as one JSON line whose stack names the TypeScript source', async ({
    bundle: { outfile },
    slack,
  }) => {
    const bot = spawn(process.execPath, [outfile], {
      cwd: ROOT,
      env: { ...(await botEnv(slack)), CNGN_DESK_CRASH_AT: 'nowhere' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    bot.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(bot, 'exit');
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length).toBeLessThan(4_096);
    const entry = JSON.parse(lines[0] ?? '') as { error: { stack: string } };
    expect(entry).toMatchObject({
      level: 'error',
      message: 'cngn-desk could not start',
      error: { type: 'Error', message: expect.stringContaining('CNGN_DESK_CRASH_AT must be one of') },
    });
    expect(entry.error.stack).toMatch(/\n {4}at armCrashPoint \(\S*src\/crash-points\.ts:\d+:\d+\)\n/);
    expect(entry.error.stack).toMatch(/\n {4}at main \(\S*src\/main\.ts:\d+:\d+\)\n/);
    expect(entry.error.stack).not.toContain('main.js');
  });

  // Run by an idle bot before, and used only by a custody call, a response_url post, a passkey
  // registration or signature (docs/decisions/loaded-on-first-use.md). Undici's source stays in a
  // chunk main.js loads, as Socket Mode's client requires it, but only an undici call runs it.
  it('loads undici and the passkey library only on first use', ({ bundle: { dir, files } }) => {
    const loaded = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      for (const [, imported] of readFileSync(join(dir, file), 'utf8').matchAll(
        /(?:\bfrom|\bimport)\s*"\.\/([^"]+\.js)"/g,
      ))
        visit(imported as string);
    };
    visit('main.js');
    const texts = [...loaded].map((file) => readFileSync(join(dir, file), 'utf8'));
    // By import(): undici, the library's helpers and the library itself.
    for (const chunk of ['undici', 'helpers', 'esm'])
      expect(texts.some((text) => text.includes(`import("./main-${chunk}-`))).toBe(true);
    expect([...loaded].filter((file) => /^main-(undici|helpers|esm)-/.test(file))).toEqual([]);
    // Nothing main.js loads imports undici at its top (as a static `import … from 'undici'` would), and
    // Bolt's Socket Mode receiver, whose client runs undici, is required only by its stand-in.
    expect(texts.filter((text) => /\bimport_undici\d*=__toESM\(require_undici\(\)/.test(text))).toEqual([]);
    const receivers = texts.flatMap((text) => [...text.matchAll(/require_SocketModeReceiver\(\)/g)]);
    expect(receivers).toHaveLength(1);
    expect(texts.some((text) => /\?\?=require_SocketModeReceiver\(\)\.default/.test(text))).toBe(true);
    // @peculiar/asn1-schema's converter and the library's attestation checks.
    const parsers = /\bAsnConvert=class\b|\bfunction verifyAttestationPacked\b/;
    expect(texts.filter((text) => parsers.test(text))).toEqual([]);
    expect(files.some((file) => parsers.test(readFileSync(join(dir, file), 'utf8')))).toBe(true);
  });
});

describe('npm start', () => {
  // Before, npm → sh → tsx → node: npm passed the SIGTERM to sh, which never passed it on, so a
  // supervisor stopping npm left the bot serving until it was killed outright.
  it(
    'stops the bot gracefully when npm alone gets a SIGTERM',
    async ({ slack }) => {
      const npm = spawn('npm', ['start'], {
        cwd: ROOT,
        env: await botEnv(slack),
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true, // its own process group, so a bot left behind is still stopped below
      });
      const log: string[] = [];
      try {
        const url = await runningUrl(npm, log);
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        const exited = once(npm, 'exit');
        npm.kill('SIGTERM');
        await exited;
        const entries = log.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as object);
        expect(entries).toContainEqual(
          expect.objectContaining({ message: 'shutting down', reason: 'SIGTERM' }),
        );
        await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      } finally {
        try {
          if (npm.pid) process.kill(-npm.pid, 'SIGKILL');
        } catch {
          // the group is gone: nothing was left behind
        }
      }
    },
    BUILD_MS,
  );
});

describe('a module in the bundle', () => {
  const outfile = `${WORK}/where/out/where.js`;

  it('sees import.meta of its own source file, so paths relative to it work from dist/ as from src/', async ({
    whereSource: source,
  }) => {
    await build({ entry: source, outfile });
    const { where } = (await import(pathToFileURL(join(ROOT, outfile)).href)) as {
      where: { url: string; dirname: string; filename: string };
    };
    expect(where).toEqual({
      url: pathToFileURL(join(ROOT, source)).href,
      dirname: join(ROOT, WORK, 'where'),
      filename: join(ROOT, source),
    });
  });

  it('keeps the chunks of the build before (a bot may still run it) and drops older ones', async ({
    whereSource: _,
  }) => {
    const lazy = `${WORK}/where/lazy.ts`;
    const entry = `${WORK}/where/entry.ts`;
    const dir = join(ROOT, WORK, 'where', 'chunks');
    writeFileSync(join(ROOT, entry), "export const later = () => import('./lazy.js');\n");
    const chunks = async (version: number) => {
      writeFileSync(join(ROOT, lazy), `export const version = ${version};\n`);
      await build({ entry, outfile: `${WORK}/where/chunks/entry.js` });
      return readdirSync(dir).filter((file) => /^entry-lazy-\w+\.js$/.test(file));
    };
    const [first] = await chunks(1);
    const second = await chunks(2);
    expect(second).toHaveLength(2);
    expect(second).toContain(first);
    const third = await chunks(3);
    expect(third).toHaveLength(2);
    expect(third).not.toContain(first);
  });

  it('leaves no esbuild process running once built', async ({ whereSource: source }) => {
    await build({ entry: source, outfile: `${WORK}/where/stopped/where.js` });
    if (!existsSync('/proc/self/stat')) return; // the process table is read from Linux's /proc
    const esbuildChildren = () =>
      readdirSync('/proc')
        .filter((name) => /^\d+$/.test(name))
        .flatMap((pid) => {
          try {
            const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
            const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
            return parent === process.pid ? [readFileSync(`/proc/${pid}/cmdline`, 'utf8')] : [];
          } catch {
            return []; // gone meanwhile
          }
        })
        .filter((command) => command.includes('esbuild'));
    // esbuild's stop() signals its service and returns at once: the process ends a moment later.
    await expect.poll(esbuildChildren, { timeout: 10_000 }).toEqual([]);
  });

  it('is built again only when one of its inputs changed', async ({ whereSource: source }) => {
    const options = { entry: source, outfile: `${WORK}/where/again/where.js` };
    expect(await buildIfStale(options)).toBe('built');
    expect(isFresh(options.outfile)).toBe(true);
    expect(await buildIfStale(options)).toBe('fresh');
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(ROOT, source), later, later);
    expect(isFresh(options.outfile)).toBe(false);
    expect(await buildIfStale(options)).toBe('built');
    expect(isFresh(options.outfile)).toBe(true);
  });
});

describe('what the build says', () => {
  /** Runs the build as `npm start` and `npm run build` do, on `entry`; its status and stderr lines. */
  function buildCommand(entry: string, outfile: string) {
    const run = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { buildForCommand } from './scripts/build.mjs';
         await buildForCommand(${JSON.stringify({ entry, outfile })});`,
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: BUILD_MS },
    );
    const lines = run.stderr.trimEnd().split('\n');
    return { status: run.status, lines, entries: lines.map((line) => JSON.parse(line) as object) };
  }

  it(
    'says it built, and each esbuild warning, as JSON lines',
    () => {
      const entry = `${WORK}/said/warned.ts`;
      mkdirSync(join(ROOT, WORK, 'said'), { recursive: true });
      writeFileSync(join(ROOT, entry), 'export const twice = { a: 1, a: 2 };\n');
      const { status, entries } = buildCommand(entry, `${WORK}/said/warned/main.js`);
      expect(status).toBe(0);
      expect(entries).toEqual([
        expect.objectContaining({
          level: 'warn',
          message: expect.stringContaining('Duplicate key "a"'),
          file: entry,
          line: 1,
        }),
        expect.objectContaining({
          level: 'info',
          message: expect.stringMatching(new RegExp(`^built ${WORK}/said/warned/main\\.js in \\d+ ms$`)),
        }),
      ]);
    },
    BUILD_MS,
  );

  it(
    'says a failed build in one JSON error line naming the place, and exits 1',
    () => {
      const entry = `${WORK}/said/broken.ts`;
      mkdirSync(join(ROOT, WORK, 'said'), { recursive: true });
      writeFileSync(
        join(ROOT, entry),
        "import { nothing } from './missing.js';\nexport const x = nothing;\n",
      );
      const { status, lines, entries } = buildCommand(entry, `${WORK}/said/broken/main.js`);
      expect(status).toBe(1);
      expect(lines).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        level: 'error',
        message: expect.stringContaining(`could not build ${WORK}/said/broken/main.js: Could not resolve`),
        errors: [expect.objectContaining({ file: entry, line: 1 })],
      });
    },
    BUILD_MS,
  );
});
