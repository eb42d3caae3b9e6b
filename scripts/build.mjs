// The production build: src/main.ts and everything it imports, dependencies included, bundled by
// esbuild into one ESM file, dist/main.js. One file starts in about a third of the CPU time of the
// same code as ~1,000 separate modules and holds ~25 MB less. Not minified, so stack traces stay
// readable (a linked source map maps them back to TypeScript under --enable-source-maps).
// Types are checked by `npm run typecheck`, not here.
//
// Incremental: <outfile>.build.json lists every source file read with its size and mtime, and
// stands for the packages with node_modules/.package-lock.json (npm rewrites it on every install);
// when none changed (and this file did not), nothing is rebuilt: a restart costs ~150 stat calls.
// `node scripts/build.mjs [--force]` builds from the command line (npm's `prepare` runs it).
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

// Not bundled: native code found by path (sqlite3), a package that runs its own binary (esbuild,
// used at run time by the workbench), and what only tests use.
const EXTERNAL = ['sqlite3', 'esbuild', 'playwright-core'];

// Every module shares the bundle's import.meta; these stand in for the module's own source file,
// so a file read by a path relative to its module (e.g. the workbench page source) is found from
// dist/ as from src/.
const IMPORT_META = /\bimport\.meta\.(url|dirname|filename)\b/g;

/** Bundle `entry` (relative to the project) into `outfile`; returns the inputs esbuild read. */
export async function build({ entry = 'src/main.ts', outfile = 'dist/main.js' } = {}) {
  const esbuild = await import('esbuild');
  const outPath = join(ROOT, outfile);
  const outDir = dirname(outPath);
  const sourceUrl = (file) => {
    const path = relative(outDir, file).split(sep).join('/');
    return `new URL(${JSON.stringify(path.startsWith('.') ? path : `./${path}`)}, import.meta.url)`;
  };
  const importMetaOfSource = {
    name: 'import-meta-of-source',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
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
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile: outPath,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    external: EXTERNAL,
    // CommonJS dependencies call require(); an ESM bundle has none of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
    plugins: [importMetaOfSource],
  });
  mkdirSync(outDir, { recursive: true });
  // Written aside and renamed, so a bot starting meanwhile never reads half a file.
  for (const file of result.outputFiles) {
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
  const inputs = [...Object.keys(result.metafile.inputs).map((path) => join(ROOT, path)), THIS_FILE];
  const installed = join(ROOT, 'node_modules', '.package-lock.json');
  const watched = existsSync(installed)
    ? [...inputs.filter((path) => !path.includes(`${sep}node_modules${sep}`)), installed]
    : inputs;
  const stamp = {
    outfile,
    inputs: Object.fromEntries(watched.map((path) => [relative(ROOT, path), fingerprint(path)])),
  };
  const stampPath = `${outPath}.build.json`;
  writeFileSync(`${stampPath}.${process.pid}.tmp`, JSON.stringify(stamp));
  renameSync(`${stampPath}.${process.pid}.tmp`, stampPath);
  return inputs;
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

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const started = performance.now();
  const force = process.argv.includes('--force');
  let outcome = 'built';
  if (force) await build();
  else outcome = await buildIfStale();
  const ms = Math.round(performance.now() - started);
  process.stderr.write(
    `dist/main.js ${outcome === 'built' ? `built in ${ms} ms` : `up to date (${ms} ms)`}\n`,
  );
}
