// Which build this is, for /healthz, the start-up line and cngn_build_info: the version from
// package.json, the commit it was built from, and the Node.js it runs on. The commit is read from a
// REVISION file beside package.json (the release writes one) or else from the checkout's .git; a tree
// with neither says `unknown`. Read once, at start-up.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  version: string;
  commit: string;
  node: string;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}

const COMMIT = /^[0-9a-f]{7,64}$/;

/** HEAD of the checkout at `root`: a worktree's `.git` is a file naming its git directory. */
function gitCommit(root: string): string | undefined {
  let gitDir = join(root, '.git');
  const pointer = read(gitDir);
  if (pointer?.startsWith('gitdir:')) gitDir = resolve(root, pointer.slice('gitdir:'.length).trim());
  const head = read(join(gitDir, 'HEAD'));
  if (!head?.startsWith('ref:')) return head;
  const ref = head.slice('ref:'.length).trim();
  // A worktree keeps its refs in the common directory.
  const common = read(join(gitDir, 'commondir'));
  const refsDir = common ? resolve(gitDir, common) : gitDir;
  const loose = read(join(gitDir, ref)) ?? read(join(refsDir, ref));
  if (loose) return loose;
  const packed = read(join(refsDir, 'packed-refs'));
  return packed
    ?.split('\n')
    .find((line) => line.endsWith(` ${ref}`))
    ?.split(' ')[0];
}

let cached: BuildInfo | undefined;

export function buildInfo(root = ROOT): BuildInfo {
  if (cached && root === ROOT) return cached;
  const pkg = JSON.parse(read(join(root, 'package.json')) ?? '{}') as { version?: unknown };
  const found = read(join(root, 'REVISION')) ?? gitCommit(dirname(join(root, 'package.json')));
  const info = {
    version: typeof pkg.version === 'string' ? pkg.version : 'unknown',
    commit: found && COMMIT.test(found) ? found.slice(0, 12) : 'unknown',
    node: process.version,
  };
  if (root === ROOT) cached = info;
  return info;
}
