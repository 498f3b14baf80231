#!/usr/bin/env bash
# make bench: the recording proxy against a bare cat pipe in the same run, then every
# package's benchmarks. Figures are reported as ratios to the same-run baseline, since
# the machines are shared and noisy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
benchtime=${BENCHTIME:-2s}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench '^BenchmarkPipe$' -benchtime "$benchtime" -count "${COUNT:-3}" ./cmd/codexrec | tee "$out"
awk '
/^BenchmarkPipe\// {
  split($1, p, "/"); mode = p[2]; kind = p[3]; sub(/-[0-9]+$/, "", kind)
  for (i = 3; i <= NF; i++) {
    if ($(i+1) == "MB/s") mbs[mode] += $i
    if ($(i+1) == "msgs/s") msgs[mode] += $i
    if ($(i+1) == "p50-µs") p50[mode] += $i
    if ($(i+1) == "cpu-ms/op") cpu[mode] += $i
  }
  if (kind == "throughput") nt[mode]++; else nr[mode]++
}
END {
  printf "\nratios to the bare cat pipe (mean of runs):\n"
  for (m in mbs) if (m != "cat") {
    printf "  %-13s throughput %.3f (%.0f vs %.0f MB/s, %.0f msgs/s)  median round trip %.2fx (%.0f vs %.0f µs)  cpu %.1fx\n", m,
      (mbs[m]/nt[m]) / (mbs["cat"]/nt["cat"]), mbs[m]/nt[m], mbs["cat"]/nt["cat"], msgs[m]/nt[m],
      (p50[m]/nr[m]) / (p50["cat"]/nr["cat"]), p50[m]/nr[m], p50["cat"]/nr["cat"],
      (cpu[m]/nt[m]) / (cpu["cat"]/nt["cat"])
  }
}' "$out"
if [ "${ALL:-0}" = 1 ]; then
  go test -run '^$' -bench . -benchtime 1x ./...
fi
