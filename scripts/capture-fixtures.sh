#!/usr/bin/env bash
# make fixtures: capture every shipped scenario with every pinned codex version into
# fixtures/hermetic/<version>/<scenario>.jsonl, printing each capture's time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${CODEXREC:-$root/bin/codexrec}
versions=${CODEX_VERSIONS:-$(sed -n 's/^CODEX_VERSIONS := //p' Makefile)}
scenarios=${SCENARIOS:-$("$bin" capture --list | awk '{print $1}')}
total_start=$(date +%s%N)
for v in $versions; do
  mkdir -p "fixtures/hermetic/$v"
  for s in $scenarios; do
    start=$(date +%s%N)
    "$bin" capture --scenario "$s" --codex-version "$v" --force -o "fixtures/hermetic/$v/$s.jsonl" 2>/dev/null \
      || { echo "capture $s with codex $v failed; rerun: $bin capture --scenario $s --codex-version $v -o /tmp/$s.jsonl" >&2; exit 1; }
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf '%-8s %-18s %3d.%03ds\n' "$v" "$s" $((ms / 1000)) $((ms % 1000))
  done
done
# One WebSocket scenario per version: the same capture over ws:// (through the relay).
socket_scenarios=${SOCKET_SCENARIOS:-plain}
for v in $versions; do
  mkdir -p "fixtures/hermetic/$v/ws"
  for s in $socket_scenarios; do
    start=$(date +%s%N)
    "$bin" capture --scenario "$s" --codex-version "$v" --transport ws --force -o "fixtures/hermetic/$v/ws/$s.jsonl" 2>/dev/null \
      || { echo "capture $s over ws with codex $v failed; rerun: $bin capture --scenario $s --codex-version $v --transport ws -o /tmp/$s.jsonl" >&2; exit 1; }
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf '%-8s %-18s %3d.%03ds\n' "$v" "ws/$s" $((ms / 1000)) $((ms % 1000))
  done
done
ms=$(( ($(date +%s%N) - total_start) / 1000000 ))
printf 'all fixtures: %d.%03ds\n' $((ms / 1000)) $((ms % 1000))
