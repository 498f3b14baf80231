#!/usr/bin/env bash
# install-codex.sh VERSION: fetch the native codex binary of VERSION from the npm
# registry into a git-ignored cache (default .cache/codex, or $CODEXREC_CACHE) when it is
# missing, and print its path on stdout. Everything else goes to stderr.
set -euo pipefail

version=${1:?usage: scripts/install-codex.sh VERSION}
case "$(uname -m)" in
  x86_64|amd64) npmarch=x64; triple=x86_64-unknown-linux-musl ;;
  aarch64|arm64) npmarch=arm64; triple=aarch64-unknown-linux-musl ;;
  *) echo "install-codex: unsupported machine $(uname -m)" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CODEXREC_CACHE:-$root/.cache/codex}
dir=$cache/$version
bin=$dir/package/vendor/$triple/bin/codex

if [ ! -x "$bin" ]; then
  command -v npm >/dev/null || { echo "install-codex: npm is needed to fetch @openai/codex@$version" >&2; exit 2; }
  tmp=$(mktemp -d "$cache.tmp.XXXXXX" 2>/dev/null || { mkdir -p "$cache"; mktemp -d "$cache.tmp.XXXXXX"; })
  trap 'rm -rf "$tmp"' EXIT
  echo "install-codex: fetching @openai/codex@$version-linux-$npmarch from the npm registry" >&2
  (cd "$tmp" && npm pack --silent "@openai/codex@$version-linux-$npmarch" >/dev/null)
  mkdir -p "$tmp/x"
  tar -xzf "$tmp"/*.tgz -C "$tmp/x"
  [ -x "$tmp/x/package/vendor/$triple/bin/codex" ] || { echo "install-codex: no binary at vendor/$triple/bin/codex in the package" >&2; exit 2; }
  mkdir -p "$cache"
  rm -rf "$dir"
  mv "$tmp/x" "$dir"
fi
echo "$bin"
