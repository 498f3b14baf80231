#!/usr/bin/env bash
# make bench: the realistic load first (internal/testing/benchserver serving a recorded 0.171.0
# turn, driven directly, behind the C relay and behind `codexrec record` plain and with
# defaults, alternating; latency under load; peak memory of a huge line), then the
# framing bench (the recording proxy against a bare cat pipe), then, with ALL=1, every
# package's benchmarks. Figures are reported as ratios to the same-run baseline, since
# the machines are shared and noisy.
#
#   COUNT=3        runs of each benchmark (the tables give each run and the median)
#   ROUNDS=20      rounds per run of BenchmarkTurn (each: 16 pipelined turns and 10
#                  single turns per path) and of BenchmarkLoad (one 1000-delta turn)
#   HUGE=0         skip the huge-line memory bench (HUGE_MB=100 sets the line's size)
#   READERS=0      skip the readers' memory and time bench (READERS_SCALE=10: smaller)
#   STARTUP=0      skip the start-up bench (BENCH_STARTS=20 runs of each case)
#   BULK=0         skip the bulk bench (BENCH_TURNS=1350 turns, about 100 MB, per
#                  session; BENCH_BUSY=0 leaves out the runs under contention)
#   ECHO=0         skip the cat-echo framing bench
#   SANITIZE=0     skip the sanitizer's speed (MB per CPU-second on secret-dense and
#                  ordinary traffic, and the guard's; targets 50 and 100 per core)
#   BASE=REV       also run the record paths of codexrec built at git revision REV
#                  (base-plain, base-record): before and after, in the same run
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
benchtime=${BENCHTIME:-2s}
out=$(mktemp)
base=
trap 'rm -f "$out" "$out.test" "$out.turn"; [ -z "$base" ] || rm -rf "$base"' EXIT
# PIN=1 runs everything on one CPU: no wake-up crosses CPUs, so the round trip measures
# the work on the path (steadier on a shared machine, but not what a client sees).
pin=()
if [ "${PIN:-0}" = 1 ]; then
  pin=(taskset -c 0)
fi
go test -c -o "$out.test" ./cmd/codexrec
if [ -n "${BASE:-}" ]; then
  base=$(mktemp -d)
  mkdir "$base/src"
  git archive "$BASE" | tar -x -C "$base/src"
  # Built as make build builds the current one (static), so the two differ by code.
  (cd "$base/src" && CGO_ENABLED=0 go build -o "$base/codexrec" ./cmd/codexrec)
  export CODEXREC_BASE="$base/codexrec"
fi
realistic='^Benchmark(Turn|Load)$'
(cd cmd/codexrec && "${pin[@]}" "$out.test" -test.run '^$' -test.bench "$realistic" -test.benchtime "${ROUNDS:-20}x" -test.count "${COUNT:-3}") | tee "$out.turn"
if [ "${BULK:-1}" != 0 ]; then
  # Bulk: pipelined turns, stdin closed after the last, quiet and with a busy loop
  # per CPU; every record mode (and the base's); the time from the server's exit to
  # the client's EOF and to codexrec's exit.
  (cd cmd/codexrec && "$out.test" -test.run '^$' -test.bench '^BenchmarkBulk$' -test.benchtime "${BULK_ROUNDS:-1}x" -test.count "${COUNT:-3}") | tee -a "$out.turn"
fi
if [ "${STARTUP:-1}" != 0 ]; then
  # Start-up: record -- true and a replay, whole processes, CPU and wall (medians).
  (cd cmd/codexrec && "$out.test" -test.run '^$' -test.bench '^BenchmarkStartup$' -test.benchtime 1x -test.count "${COUNT:-3}") | tee -a "$out.turn"
fi
if [ "${HUGE:-1}" != 0 ]; then
  (cd cmd/codexrec && "$out.test" -test.run '^$' -test.bench '^BenchmarkHugeLine$' -test.benchtime 1x -test.count 1) | tee -a "$out.turn"
fi
awk -f scripts/benchtable.awk "$out.turn"
# READERS=0 skips every reader's peak RSS and time on 300k deltas, a 100 MB line and
# 1M frames (READERS_SCALE=10 divides the sizes); x-bound is RSS / (2 x file + 64 MB).
if [ "${READERS:-1}" != 0 ]; then
  (cd cmd/codexrec && "$out.test" -test.run '^$' -test.bench '^BenchmarkReaders$' -test.benchtime 1x -test.count 1)
fi
if [ "${SANITIZE:-1}" != 0 ]; then
  # The sanitizer as record runs it: one frame in three holding a secret (dense), and
  # ordinary sessions; MB per CPU-second of the process is the per-core figure.
  go test -run '^$' -bench '^Benchmark(SanitizeDense|Sanitize)$' -benchtime "${SANITIZE_TIME:-2x}" -count "${COUNT:-3}" ./sanitize |
    awk '/^Benchmark/ { for (i = 3; i <= NF; i++) if ($(i+1) == "MB/cpu-s") printf "  %-60s %8.1f MB/cpu-s\n", $1, $i }'
fi
if [ "${ECHO:-1}" = 0 ]; then
  exit 0
fi
(cd cmd/codexrec && "${pin[@]}" "$out.test" -test.run '^$' -test.bench '^Benchmark(Pipe|RoundTrip)$' -test.benchtime "$benchtime" -test.count "${COUNT:-3}") | tee "$out"
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
  runs++
  for (i = 3; i <= NF; i++) {
    u = $(i+1)
    if (u ~ /-p50-µs$/) { m = u; sub(/-p50-µs$/, "", m); p50[m] += $i; if (!(m in seen)) { seen[m] = 1; order[++nm] = m } }
    if (u ~ /\/cat$/) { m = u; sub(/\/cat$/, "", m); rc[m] += $i }
    if (u ~ /\/relay-go$/) { m = u; sub(/\/relay-go$/, "", m); rg[m] += $i }
  }
}
END {
  printf "\nthroughput, ratio to the bare cat pipe (mean of %d runs):\n", n["cat"]
  for (m in mbs) if (m != "cat") {
    printf "  %-13s %.3f (%.0f vs %.0f MB/s, %.0f msgs/s, cpu %.1fx)\n", m,
      (mbs[m]/n[m]) / (mbs["cat"]/n["cat"]), mbs[m]/n[m], mbs["cat"]/n["cat"], msgs[m]/n[m],
      (cpu[m]/n[m]) / (cpu["cat"]/n["cat"])
  }
  if (runs) {
    printf "\nmedian round trip (mean of %d runs; relay-c and relay-go are the floors of any proxy and of one in Go):\n", runs
    for (k = 1; k <= nm; k++) {
      m = order[k]
      if (m == "cat") { printf "  %-13s %6.1f µs\n", m, p50[m]/runs; continue }
      printf "  %-13s %6.1f µs  %.2fx cat", m, p50[m]/runs, rc[m]/runs
      if (m in rg) printf "  %.2fx relay-go", rg[m]/runs
      printf "\n"
    }
  }
}' "$out"
rm -f "$out.test"
if [ "${ALL:-0}" = 1 ]; then
  go test -run '^$' -bench . -benchtime 1x ./...
fi
