#!/bin/sh
# The release's steps, as the Dockerfile runs them and test/release.test.ts runs them outside a
# container:
#
#   scripts/release.sh deps          beside package.json and the lock, in a folder with no node_modules:
#                                    install every dependency exactly as locked (npm ci), with the
#                                    dependencies' install scripts (sqlite3 builds) but not the project's
#                                    own (its sources come later), so this layer is cached until the lock
#                                    changes
#   scripts/release.sh build <dir>   in a clean copy of the tree on those dependencies: build the
#                                    production bundle, and put in <dir> what runs it: dist/, assets/
#                                    (the chart's font), package.json, the lock, REVISION (the commit),
#                                    production dependencies only (no build leftovers), this script
#   scripts/release.sh start         in <dir>: run the bot as npm start does, without npm's process
#   scripts/release.sh check         exit 0 when GET /livez on the admin port, 127.0.0.1:$ADMIN_PORT
#                                    (default 9091), answers 200; with ADMIN_PORT=0 (no admin
#                                    listener, so no probe) when the bot answers HTTP on $PORT at all
set -eu

usage() {
  echo "usage: scripts/release.sh deps | build <dir> | start | check" >&2
  exit 2
}

# What `deps` leaves in node_modules, so `build` (which prunes) never runs on a working checkout's.
MARK=node_modules/.release-deps

deps() {
  [ $# -eq 0 ] || usage
  cd "$(dirname "$0")/.."
  if [ -e node_modules ] || [ -L node_modules ]; then
    echo "scripts/release.sh deps runs in a clean copy of the tree (a container build, or a fresh checkout): this one has node_modules" >&2
    exit 1
  fi
  npm ci --ignore-scripts --no-audit --no-fund
  npm rebuild --no-audit --no-fund # the dependencies' install scripts only (npm ci's would run prepare)
  touch "$MARK"
}

build() {
  [ $# -eq 1 ] || usage
  case "$1" in
    /*) out="$1" ;;
    *) out="$PWD/$1" ;;
  esac
  cd "$(dirname "$0")/.."
  # The build prunes node_modules: only ever the one `deps` installed.
  if [ ! -e "$MARK" ]; then
    echo "scripts/release.sh build runs on the dependencies scripts/release.sh deps installed (in a container build, or a fresh checkout): run that first" >&2
    exit 1
  fi
  if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
    echo "scripts/release.sh build: $out is not empty" >&2
    exit 1
  fi
  node scripts/build.mjs
  test -f dist/main.js
  # Only what runs the bot: no dev dependencies, no sources (the source maps carry the file names).
  npm prune --omit=dev --no-audit --no-fund
  find node_modules -mindepth 1 -maxdepth 1 -name '@*' -type d -empty -delete # scopes prune emptied
  # sqlite3 loads build/Release/node_sqlite3.node: its sources, objects and static libraries stay behind.
  if [ -d node_modules/sqlite3/build/Release ]; then
    find node_modules/sqlite3/build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
    find node_modules/sqlite3/build/Release -mindepth 1 -maxdepth 1 ! -name node_sqlite3.node -exec rm -rf {} +
    rm -rf node_modules/sqlite3/deps node_modules/sqlite3/src
  fi
  rm -f "$MARK"
  mkdir -p "$out/scripts"
  rm -f dist/*.build.json
  mv dist node_modules "$out/"
  # The chart's font, read at run time beside dist/ (src/reports/chart.ts), with its licence.
  cp -R assets "$out/"
  cp package.json package-lock.json "$out/"
  # Which commit this is, for cngn_build_info and /healthz (src/version.ts): a build without .git
  # (a container's context) is told with CNGN_DESK_COMMIT.
  commit="${CNGN_DESK_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  echo "$commit" >"$out/REVISION"
  cp scripts/release.sh "$out/scripts/"
  echo "release in $out: node $(node --version), $(du -sh "$out" | cut -f1)"
}

start() {
  cd "$(dirname "$0")/.."
  # npm start's node flags and allocator settings (package.json; test/release-recipe.test.ts keeps
  # them the same), without npm's process and without the build step: the release holds no sources.
  export MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=131072 MIMALLOC_PURGE_DELAY=0
  exec node --max-semi-space-size=2 dist/main.js
}

check() {
  exec node -e '
    const admin = (process.env.ADMIN_PORT || "").trim() || "9091";
    const off = Number(admin) === 0;
    const url = off ? `http://127.0.0.1:${(process.env.PORT || "").trim() || 3000}/` : `http://127.0.0.1:${admin}/livez`;
    fetch(url, { signal: AbortSignal.timeout(4000) })
      .then((answer) => process.exit(off || answer.status === 200 ? 0 : 1), () => process.exit(1));
  '
}

[ $# -ge 1 ] || usage
step="$1"
shift
case "$step" in
  deps) deps "$@" ;;
  build) build "$@" ;;
  start) start ;;
  check) check ;;
  *) usage ;;
esac
