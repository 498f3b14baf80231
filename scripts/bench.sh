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
go test -run '^$' -bench '^Benchmark(Pipe|RoundTrip)$' -benchtime "$benchtime" -count "${COUNT:-3}" ./cmd/codexrec | tee "$out"
awk '
/^BenchmarkPipe\// {
  split($1, p, "/"); mode = p[2]
  for (i = 3; i <= NF; i++) {
    if ($(i+1) == "MB/s") mbs[mode] += $i
    if ($(i+1) == "msgs/s") msgs[mode] += $i
    if ($(i+1) == "cpu-ms/op") cpu[mode] += $i
  }
  n[mode]++
}
/^BenchmarkRoundTrip/ {
  for (i = 3; i <= NF; i++) {
    if ($(i+1) ~ /-p50-µs$/) { m = $(i+1); sub(/-p50-µs$/, "", m); p50[m] += $i; nr[m]++ }
    if ($(i+1) ~ /\/cat$/) { m = $(i+1); sub(/\/cat$/, "", m); rr[m] += $i }
  }
}
END {
  printf "\nratios to the bare cat pipe (mean of runs):\n"
  for (m in mbs) if (m != "cat") {
    printf "  %-13s throughput %.3f (%.0f vs %.0f MB/s, %.0f msgs/s, cpu %.1fx)  median round trip %.2fx (%.0f vs %.0f µs)\n", m,
      (mbs[m]/n[m]) / (mbs["cat"]/n["cat"]), mbs[m]/n[m], mbs["cat"]/n["cat"], msgs[m]/n[m],
      (cpu[m]/n[m]) / (cpu["cat"]/n["cat"]),
      rr[m]/nr[m], p50[m]/nr[m], p50["cat"]/nr["cat"]
  }
}' "$out"
if [ "${ALL:-0}" = 1 ]; then
  go test -run '^$' -bench . -benchtime 1x ./...
fi
