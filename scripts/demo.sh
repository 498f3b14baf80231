#!/usr/bin/env bash
# make demo: record a real codex app-server session (initialize, initialized,
# thread/start) hermetically, then print the recording's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
codex=$("$root/scripts/install-codex.sh" 0.171.0)
out=${DEMO_OUT:-$root/out/demo.jsonl}
mkdir -p "$(dirname "$out")"
home=$(mktemp -d); work=$(mktemp -d)
trap 'rm -rf "$home" "$work"' EXIT
cd "$work"
{
  printf '%s\n' '{"id":1,"method":"initialize","params":{"clientInfo":{"name":"codexrec-demo","title":"codexrec demo","version":"1"}}}'
  printf '%s\n' '{"method":"initialized"}'
  printf '%s\n' '{"id":2,"method":"thread/start","params":{}}'
  sleep 2
} | CODEX_HOME=$home FAKE_API_KEY=sk-fake-key env -u OPENAI_API_KEY -u CODEX_API_KEY \
  "$root/bin/codexrec" record --force -o "$out" -- "$codex" app-server \
  -c model_provider=fake -c model=gpt-fake \
  -c 'model_providers.fake={name="fake",base_url="http://127.0.0.1:9/v1",env_key="FAKE_API_KEY",wire_api="responses"}' \
  >/dev/null 2>"$work/stderr.txt"
"$root/bin/codexrec" summary "$out"
echo "recording written to $out"
