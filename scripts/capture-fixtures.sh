#!/usr/bin/env bash
# make fixtures: capture every shipped scenario with every pinned codex version into
# fixtures/hermetic/<version>/<scenario>.jsonl, printing each capture's time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=${CODEXREC:-$root/bin/codexrec}
versions=${CODEX_VERSIONS:-$(sed -n 's/^CODEX_VERSIONS := //p' Makefile)}
scenarios=${SCENARIOS:-$("$bin" capture --list | awk '{print $1}')}
total_start=$(date +%s.%N)
for v in $versions; do
  mkdir -p "fixtures/hermetic/$v"
  for s in $scenarios; do
    start=$(date +%s.%N)
    "$bin" capture --scenario "$s" --codex-version "$v" --force -o "fixtures/hermetic/$v/$s.jsonl" 2>/dev/null \
      || { echo "capture $s with codex $v failed; rerun: $bin capture --scenario $s --codex-version $v -o /tmp/$s.jsonl" >&2; exit 1; }
    printf '%-8s %-18s %6.2fs\n' "$v" "$s" "$(echo "$(date +%s.%N) - $start" | bc)"
  done
done
printf 'all fixtures: %.2fs\n' "$(echo "$(date +%s.%N) - $total_start" | bc)"
