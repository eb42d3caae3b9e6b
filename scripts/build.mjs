// The production build: src/main.ts and everything it imports, dependencies included, bundled by
// esbuild as ESM into dist/main.js plus the chunks it shares with the modules it loads with a dynamic
// import() (the Redis and PostgreSQL stores, the workbench): a bot loads only what its settings use.
// A few files start in about a third of the CPU time of the same code as ~1,000 separate modules and
// hold ~25 MB less. V8 keeps each module's source text in memory as long as the process runs, so the
// output has no comments or indentation (names are kept) and only Latin-1 characters (one byte a
// character in V8's heap, where one other character doubles the whole file's share; see latin1()).
// Each file has a linked source map, without the sources' text (only positions are read from it): the
// logger maps the stack traces it writes back to TypeScript with it, through Node's SourceMap
// (src/source-maps.ts). Types are checked by `npm run typecheck`, not here.
//
// Incremental: <outfile>.build.json lists every source file read with its size and mtime, and
// stands for the packages with node_modules/.package-lock.json (npm rewrites it on every install);
// when none changed (and this file did not), nothing is rebuilt: a restart costs ~150 stat calls.
// `node scripts/build.mjs [--force]` builds from the command line (npm's `prepare` runs it).
// What the build says goes to stderr as JSON lines, like the bot's own log: `npm start`'s whole output
// is JSON lines. esbuild itself prints nothing; its warnings and errors are turned into lines here.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// Every esbuild build in the process is counted there, so the last one under way stops esbuild's
// service (~20 MB, which would otherwise stay beside the bot `npm start` runs after the build).
import { BROWSER_PAGE, buildThenStop } from '../src/esbuild-builds.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

// Not bundled: native code found by path (sqlite3, the chart's renderer @resvg/resvg-js), a package
// that runs its own binary (esbuild, used at run time by the workbench), and what only tests use.
const EXTERNAL = ['sqlite3', 'esbuild', 'playwright-core', '@resvg/resvg-js'];

// Every module shares its output file's import.meta; these stand in for the module's own source file,
// so a file read by a path relative to its module (e.g. the workbench page source) is found from
// dist/ as from src/. Chunks are written next to the entry's file for these paths to hold.
const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g;

// Bolt's index loads ExpressReceiver (express, body-parser, iconv-lite, mime-db…) only to export it;
// the bot uses its own HTTP server with HTTPReceiver, so the bundle holds a stand-in that refuses.
const unusedBoltReceiver = {
  name: 'unused-bolt-receiver',
  setup(b) {
    b.onResolve({ filter: /^\.\/receivers\/ExpressReceiver$/ }, (args) =>
      args.importer.includes(`@slack${sep}bolt${sep}`)
        ? { path: args.path, namespace: 'unused-bolt-receiver' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'unused-bolt-receiver' }, () => ({
      contents:
        "exports.default = class ExpressReceiver { constructor() { throw new Error('ExpressReceiver is not in this build (scripts/build.mjs)'); } };",
      loader: 'js',
    }));
  },
};

// Bolt's index and App load SocketModeReceiver (@slack/socket-mode, and with it undici) only to export
// it, or for a bot in Socket Mode: the bundle holds a stand-in that loads the receiver when one is
// made, so a bot on HTTP never loads them (docs/decisions/loaded-on-first-use.md).
const SOCKET_MODE_RECEIVER = /^\.\/receivers\/SocketModeReceiver$/;
const socketModeOnFirstUse = {
  name: 'socket-mode-on-first-use',
  setup(b) {
    // The stand-in is named by its path from the project, so no path of the building machine is in
    // the bundle; it requires the real module through Bolt's package.
    b.onResolve({ filter: SOCKET_MODE_RECEIVER }, (args) =>
      args.importer.includes(`@slack${sep}bolt${sep}`) && args.namespace === 'file'
        ? {
            path: relative(ROOT, join(dirname(args.importer), 'receivers', 'SocketModeReceiver.js')),
            namespace: 'socket-mode-on-first-use',
          }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'socket-mode-on-first-use' }, () => ({
      contents: `Object.defineProperty(exports, '__esModule', { value: true });
let Real;
const real = () => (Real ??= require('@slack/bolt/dist/receivers/SocketModeReceiver.js').default);
exports.default = class SocketModeReceiver {
  constructor(...options) { return new (real())(...options); }
  static [Symbol.hasInstance](value) { return Real !== undefined && value instanceof Real; }
};`,
      loader: 'js',
      resolveDir: ROOT,
    }));
  },
};

// The passkey pages' script and stylesheet, bundled for the browser beside the bot's own bundle (in
// <outdir>/passkeys/): a release has neither esbuild nor the sources to bundle them at run time.
const PASSKEY_PAGES = 'src/signing/page/app.ts';

/** The passkey pages' bundle (src/signing/assets.ts serves it when it cannot bundle them itself). */
function passkeyPages(esbuild, outDir) {
  return buildThenStop(esbuild, {
    ...BROWSER_PAGE,
    absWorkingDir: ROOT,
    entryPoints: { app: PASSKEY_PAGES },
    outdir: join(outDir, 'passkeys'),
    metafile: true,
  });
}

/** What `bot` and `pages` built, once both have ended; the first failure, if one failed. */
async function bothBuilt(bot, pages) {
  const ended = await Promise.allSettled([bot, pages]);
  const failed = ended.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return ended.map((outcome) => outcome.value);
}

/**
 * Bundle `entry` (relative to the project) into `outfile`; returns the inputs esbuild read. `esbuild`:
 * the module that builds (the installed one unless a test passes one whose builds it holds or fails).
 */
export async function build({ entry = 'src/main.ts', outfile = 'dist/main.js', esbuild: given } = {}) {
  const esbuild = given ?? (await import('esbuild'));
  const outPath = join(ROOT, outfile);
  const outDir = dirname(outPath);
  const name = basename(outPath, '.js');
  const sourceUrl = (file) => {
    const path = relative(outDir, file).split(sep).join('/');
    return `new URL(${JSON.stringify(path.startsWith('.') ? path : `./${path}`)}, import.meta.url)`;
  };
  const importMetaOfSource = {
    name: 'import-meta-of-source',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/, namespace: 'file' }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        const contents = text.replace(IMPORT_META, (_, what) => {
          const url = sourceUrl(args.path);
          if (what === 'url') return `${url}.href`;
          const path = `process.getBuiltinModule('node:url').fileURLToPath(${url})`;
          return what === 'filename' ? path : `process.getBuiltinModule('node:path').dirname(${path})`;
        });
        return { contents, loader: args.path.endsWith('ts') ? 'ts' : 'js' };
      });
    },
  };
  const pages = entry === 'src/main.ts' ? passkeyPages(esbuild, outDir) : undefined;
  const bot = buildThenStop(esbuild, {
    absWorkingDir: ROOT,
    entryPoints: { [name]: entry },
    outdir: outDir,
    chunkNames: `${name}-[name]-[hash]`,
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    external: EXTERNAL,
    // CommonJS dependencies call require(); an ESM bundle has none of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    minifyWhitespace: true,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [importMetaOfSource, unusedBoltReceiver, socketModeOnFirstUse],
  });
  // Both ended before the build does: one failing leaves the other to finish (its end may be the one
  // that stops esbuild's service), and nothing is still building once build() has failed.
  const [result, pageResult] = await bothBuilt(bot, pages);
  for (const warning of result.warnings) logLine('warn', warning.text, where(warning));
  mkdirSync(outDir, { recursive: true });
  // Written aside and renamed, so a bot starting meanwhile never reads half a file; the entry last,
  // once every chunk it imports is in place.
  const files = [...result.outputFiles, ...(pageResult?.outputFiles ?? [])].sort(
    (a, b) => Number(a.path === outPath) - Number(b.path === outPath),
  );
  for (const file of files) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.path.endsWith('.js') ? latin1(file.text) : file.contents);
    renameSync(temporary, file.path);
  }
  const outputs = files.map((file) => relative(ROOT, file.path));
  // Chunks of earlier builds (their names carry a hash of their content), except the last build's: a
  // bot still running it may load one of them later (a store driver, the sandbox's ed25519).
  const kept = new Set([...outputs, ...lastOutputs(outPath)]);
  for (const entry of readdirSync(outDir)) {
    const path = join(outDir, entry);
    if (entry.startsWith(`${name}-`) && /\.js(\.map)?$/.test(entry) && !kept.has(relative(ROOT, path))) {
      rmSync(path, { force: true });
    }
  }
  const inputs = [
    ...Object.keys({ ...result.metafile.inputs, ...pageResult?.metafile.inputs })
      // Modules a plugin made (`<namespace>:<path>`) have no file of their own to watch.
      .filter((path) => !/^[\w-]+:/.test(path))
      .map((path) => join(ROOT, path)),
    THIS_FILE,
  ];
  const installed = join(ROOT, 'node_modules', '.package-lock.json');
  const watched = existsSync(installed)
    ? [...inputs.filter((path) => !path.includes(`${sep}node_modules${sep}`)), installed]
    : inputs;
  const stamp = {
    outfile,
    outputs,
    inputs: Object.fromEntries(watched.map((path) => [relative(ROOT, path), fingerprint(path)])),
  };
  const stampPath = `${outPath}.build.json`;
  writeFileSync(`${stampPath}.${process.pid}.tmp`, JSON.stringify(stamp));
  renameSync(`${stampPath}.${process.pid}.tmp`, stampPath);
  return inputs;
}

/** One JSON line on stderr, with the fields the bot's log lines have (level, time, message). */
export function logLine(level, message, fields = {}) {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), ...fields, message })}\n`);
}

/** Where an esbuild message points, as fields of a log line. */
function where(message) {
  const at = message.location;
  return at ? { file: at.file, line: at.line, column: at.column, source: at.lineText } : {};
}

/**
 * A build that failed as one error line: esbuild's errors (each with its place), or the error's own
 * message and stack.
 */
export function logBuildFailure(outfile, error) {
  const errors = Array.isArray(error?.errors) && error.errors.length ? error.errors : undefined;
  if (errors) {
    logLine('error', `could not build ${outfile}: ${errors[0].text}`, {
      errors: errors.map((e) => ({ text: e.text, ...where(e) })),
    });
  } else {
    logLine('error', `could not build ${outfile}`, {
      error: { type: error?.name, message: error?.message ?? String(error), stack: error?.stack },
    });
  }
}

/**
 * Characters past U+00FF as \\u escapes: esbuild escapes them in strings but leaves them in regular
 * expressions (`/^₦/`) and legal comments, and one of them would make V8 hold the whole file at two
 * bytes a character. An escape means the same there.
 */
function latin1(text) {
  return text.replace(/[\u0100-\u{10ffff}]/gu, (character) =>
    [...Array(character.length).keys()]
      .map((i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`)
      .join(''),
  );
}

/** The files the last build wrote (from its stamp). */
function lastOutputs(outPath) {
  try {
    const { outputs } = JSON.parse(readFileSync(`${outPath}.build.json`, 'utf8'));
    return Array.isArray(outputs) ? outputs : [];
  } catch {
    return []; // no build yet
  }
}

function fingerprint(path) {
  const stat = statSync(path);
  return `${stat.size}:${stat.mtimeMs}`;
}

/** True when `outfile` exists and no input changed since it was built. */
export function isFresh(outfile = 'dist/main.js') {
  try {
    const outPath = join(ROOT, outfile);
    statSync(outPath);
    const stamp = JSON.parse(readFileSync(`${outPath}.build.json`, 'utf8'));
    if (stamp.outfile !== outfile || !stamp.inputs[relative(ROOT, THIS_FILE)]) return false;
    if (!Array.isArray(stamp.outputs) || !stamp.outputs.every((path) => existsSync(join(ROOT, path))))
      return false;
    return Object.entries(stamp.inputs).every(([path, print]) => fingerprint(join(ROOT, path)) === print);
  } catch {
    return false; // no build yet, or an input is gone
  }
}

/** Build unless fresh; says which. */
export async function buildIfStale(options = {}) {
  if (isFresh(options.outfile)) return 'fresh';
  await build(options);
  return 'built';
}

/**
 * What `npm start` and `npm run build` run: build (always with `force`, else unless fresh), say so in
 * one info line, or say why not in one error line and exit 1.
 */
export async function buildForCommand({ force = false, announceFresh = true, ...options } = {}) {
  const outfile = options.outfile ?? 'dist/main.js';
  const started = performance.now();
  let outcome = 'built';
  try {
    if (force) await build(options);
    else outcome = await buildIfStale(options);
  } catch (error) {
    logBuildFailure(outfile, error);
    process.exit(1);
  }
  const ms = Math.round(performance.now() - started);
  if (outcome === 'built') logLine('info', `built ${outfile} in ${ms} ms`);
  else if (announceFresh) logLine('info', `${outfile} is up to date (${ms} ms)`);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  await buildForCommand({ force: process.argv.includes('--force') });
}
