#!/usr/bin/env bash
# install-codex.sh VERSION...: fetch the native codex binary of each VERSION from the npm
# registry into the clone's git-ignored cache (.cache/codex, or $CODEXREC_CACHE) when it
# is missing, and print its path on stdout, one a line. Everything else goes to stderr.
# It is `codexrec codex install`, run from this clone's sources.
set -euo pipefail

[ $# -gt 0 ] || { echo "usage: scripts/install-codex.sh VERSION..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CODEXREC_CACHE:-$root/.cache/codex}
case $cache in /*) ;; *) cache=$PWD/$cache ;; esac
export CODEXREC_CACHE=$cache
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && "${GO:-go}" build -o "$tmp/codexrec" ./cmd/codexrec)
"$tmp/codexrec" codex install "$@"
