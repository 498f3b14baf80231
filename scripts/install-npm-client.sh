#!/usr/bin/env bash
# install-npm-client.sh: fetch ai-sdk-provider-codex-cli, a third-party codex
# app-server client, from the npm registry into a git-ignored cache (default
# .cache/npm-client, or $CODEXREC_CACHE/npm-client) when it is missing, and print the
# path of its entry point on stdout. The shim's end-to-end test drives it. Its optional
# dependency @openai/codex is left out, so the client starts `codex` from PATH.
set -euo pipefail

pkg=ai-sdk-provider-codex-cli
version=2.2.1
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${CODEXREC_CACHE:+$CODEXREC_CACHE/npm-client}
cache=${cache:-$root/.cache/npm-client}
dir=$cache/$pkg@$version
entry=$dir/node_modules/$pkg/dist/index.js

if [ ! -f "$entry" ]; then
  command -v npm >/dev/null || { echo "install-npm-client: npm is needed to fetch $pkg@$version" >&2; exit 2; }
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/tmp.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "install-npm-client: fetching $pkg@$version from the npm registry" >&2
  npm install --prefix "$tmp" --no-audit --no-fund --omit=optional --loglevel=error "$pkg@$version" "zod@4" >&2
  rm -rf "$dir"
  mv "$tmp" "$dir"
fi
echo "$entry"
