#!/usr/bin/env bash
# make demo: capture the plain scenario from the newest pinned codex app-server
# (scripted client, local fake model, no account, no network), then print the
# recording's summary: frames per direction, methods seen and the agent's reply.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
newest=$(sed -n 's/^NEWEST := //p' "$root/Makefile")
"$root/scripts/install-codex.sh" "$newest" >/dev/null
out=${DEMO_OUT:-$root/out/demo.jsonl}
mkdir -p "$(dirname "$out")"
cd "$root"
"$root/bin/codexrec" capture --scenario plain --codex-version "$newest" --force -o "$out"
"$root/bin/codexrec" summary "$out"
echo "recording written to $out"
