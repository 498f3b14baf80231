# Turns BenchmarkTurn, BenchmarkLoad and BenchmarkHugeLine lines into tables of
# same-run ratios: per run, and the median of the runs.
function median(arr, n,    i, j, t, a) {
  for (i = 1; i <= n; i++) a[i] = arr[i]
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function metric(name) { return (name in m) ? m[name] : -1 }
/^BenchmarkTurn/ {
  delete m
  for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
  tr++
  printf "\nrun %d: realistic turns (%s)\n", tr, "ratios to the server alone and to the C relay, same run"
  printf "  %-13s %10s %8s %9s %9s %9s %8s %8s\n", "path", "frames/s", "MB/s", "tput/srv", "p50 µs", "p99 µs", "p50/relay", "p99/relay"
  for (k = 1; k <= np; k++) {
    p = paths[k]
    if (metric(p "-frames/s") < 0) continue
    tput = m[p "-MB/s"] / m["server-MB/s"]
    r50 = metric("relay-c-p50-µs") > 0 ? m[p "-p50-µs"] / m["relay-c-p50-µs"] : 0
    r99 = metric("relay-c-p99-µs") > 0 ? m[p "-p99-µs"] / m["relay-c-p99-µs"] : 0
    printf "  %-13s %10.0f %8.1f %9.2f %9.0f %9.0f %8.2f %8.2f\n", p, m[p "-frames/s"], m[p "-MB/s"], tput, m[p "-p50-µs"], m[p "-p99-µs"], r50, r99
    T[p, tr] = tput; P50[p, tr] = r50; P99[p, tr] = r99
  }
  printf "  frames lost: %d (every recording's trailer counted every frame)\n", m["frames-lost"]
}
/^BenchmarkLoad/ {
  delete m
  for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
  lr++
  printf "\nrun %d: latency under load (µs; small deltas every 200 µs, 1 in 100 a 200 KB output delta; copying 200 KB takes %.1f µs here)\n", lr, m["copy-200KB-µs"]
  printf "  counted from each delta's write | from when it was due (a blocked write counts)\n"
  printf "  %-13s %9s %9s %9s %9s %9s | %9s %9s %9s\n", "path", "small p50", "small p99", "after p50", "after p99", "big p50", "small p99", "after p50", "after p99"
  for (k = 1; k <= np; k++) {
    p = paths[k]
    if (metric(p "-small-p50-µs") < 0) continue
    printf "  %-13s %9.0f %9.0f %9.0f %9.0f %9.0f | %9.0f %9.0f %9.0f\n", p, m[p "-small-p50-µs"], m[p "-small-p99-µs"], m[p "-after-big-p50-µs"], m[p "-after-big-p99-µs"], m[p "-big-p50-µs"], m[p "-small-due-p99-µs"], m[p "-after-big-due-p50-µs"], m[p "-after-big-due-p99-µs"]
  }
  print "  (after: the 5 small deltas right after a 200 KB one)"
}
/^BenchmarkBulk/ {
  delete m
  for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
  br++
  printf "\nrun %d: bulk, %.0f MB of pipelined turns, stdin closed after the last (MB/s read to EOF; ratios to the server alone in the same shape)\n", br, m["session-MB"]
  printf "  %-15s %8s %8s %8s %8s %10s %9s %12s\n", "path", "quiet", "/server", "busy", "/server", "busy/quiet", "exit->EOF", "exit->exit"
  for (k = 1; k <= nb; k++) {
    p = bpaths[k]
    if (metric(p "-quiet-MB/s") < 0) continue
    q = m[p "-quiet-MB/s"] / m["server-quiet-MB/s"]
    bz = metric(p "-busy-MB/s") > 0 ? m[p "-busy-MB/s"] / m["server-busy-MB/s"] : 0
    printf "  %-15s %8.1f %8.3f %8.1f %8.3f %10.2f", p, m[p "-quiet-MB/s"], q, m[p "-busy-MB/s"], bz, (q > 0 ? bz / q : 0)
    if (metric(p "-exit-to-eof-ms") >= 0) printf " %7.1f ms %9.1f ms", m[p "-exit-to-eof-ms"], m[p "-exit-to-exit-ms"]
    printf "\n"
    BQ[p, br] = q; BB[p, br] = bz
  }
  printf "  frames lost: %d\n", m["frames-lost"]
  print "  (tee-c: the C relay also writing each chunk it forwards to a file, on the same thread: what writing"
  print "   a recording costs the simplest proxy; bare: codexrec with every stage and the leak guard off, the"
  print "   floor of its recording; neither is run for the base)"
}
/^BenchmarkStartup/ {
  delete m
  for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
  sr++
  child = metric("child-cpu-ms") >= 0 ? m["child-cpu-ms"] : 0
  printf "\nrun %d: start-up, whole process (median ms; target 10 ms CPU without the child)\n", sr
  printf "  %-16s %8s %8s %8s %10s %10s %10s\n", "case", "cpu", "-child", "wall", "base cpu", "-child", "base wall"
  nc = split("record-true record-true-off replay shim-replay record-session", cases, " ")
  for (k = 1; k <= nc; k++) {
    c = cases[k]
    if (metric(c "-cpu-ms") < 0) continue
    ch = c ~ /^record-true/ ? child : 0
    chb = ch
    if (c == "record-session") { ch = m["replay-cpu-ms"]; chb = m["base-replay-cpu-ms"] }
    printf "  %-16s %8.1f %8.1f %8.1f", c, m[c "-cpu-ms"], m[c "-cpu-ms"] - ch, m[c "-wall-ms"]
    if (metric("base-" c "-cpu-ms") >= 0) printf " %10.1f %10.1f %10.1f", m["base-" c "-cpu-ms"], m["base-" c "-cpu-ms"] - chb, m["base-" c "-wall-ms"]
    printf "\n"
  }
  printf "  (record-true: defaults; -off: --no-validate --no-sanitize --no-leak-guard; replay: a 50-frame recording; shim-replay: record --mode replay; record-session: defaults recording that replay, a whole short session, no target; -child: less the median CPU of the child, true run alone: %.2f ms, for record-session the replay case)\n", child
}
/^BenchmarkHugeLine/ {
  delete m
  for (i = 3; i < NF; i += 2) m[$(i+1)] = $i
  printf "\npeak RSS for one %.0f MB line (MB; target %.0f = 1.5x the line + 32 MB)\n", m["line-MB"], 1.5 * m["line-MB"] + 32
  printf "  %-6s %8s %9s %9s %9s %9s %9s\n", "shape", "plain", "validate", "sanitize", "both", "defaults", "no-version"
  split("echo s2c", shapes, " ")
  for (k = 1; k <= 2; k++) {
    s = shapes[k]
    printf "  %-6s %8.0f %9.0f %9.0f %9.0f %9.0f %9.0f\n", s, m[s "-plain-rss-MB"], m[s "-validate-rss-MB"], m[s "-sanitize-rss-MB"], m[s "-both-rss-MB"], m[s "-defaults-rss-MB"], m[s "-unknown-version-rss-MB"]
  }
  print "  (plain .. both: without the leak guard; defaults: both, then the guard; no-version: both, the version unknown)"
}
END {
  if (br > 0) {
    printf "\nbulk, median of %d runs | quiet vs the server alone | busy vs the server alone\n", br
    for (k = 1; k <= nb; k++) {
      p = bpaths[k]
      if (!((p, 1) in BQ)) continue
      for (r = 1; r <= br; r++) { a[r] = BQ[p, r]; b5[r] = BB[p, r] }
      printf "  %-15s       %6.3f                       %6.3f\n", p, median(a, br), median(b5, br)
    }
    pairs("bulk", br, BQ, BB, "plain validate sanitize defaults", "base-plain base-validate base-sanitize base-defaults", "quiet MB/s (higher is better)", "busy MB/s (higher is better)")
  }
  if (tr == 0) exit
  printf "\nmedian of %d runs  | throughput vs the server alone | turn p50 vs the C relay | turn p99 vs the C relay\n", tr
  for (k = 1; k <= np; k++) {
    p = paths[k]
    if (!((p, 1) in T)) continue
    for (r = 1; r <= tr; r++) { a[r] = T[p, r]; b5[r] = P50[p, r]; b9[r] = P99[p, r] }
    printf "  %-13s     %6.2f                          %6.2f                    %6.2f\n", p, median(a, tr), median(b5, tr), median(b9, tr)
  }
  pairs("turn", tr, T, P50, "record-plain record", "base-plain base-record", "throughput (higher is better)", "p50 (lower is better)")
}
# pairs prints, for each path with a base twin in the runs, now / base run by run and
# their median, for two figures X and Y: a ratio within one run shares that run's
# machine, so it is steadier than the ratio of two medians.
function pairs(shape, n, X, Y, nows, bases, xname, yname,    k, m, q, nw, bs, r, line, rx, ry) {
  m = split(nows, nw, " ")
  split(bases, bs, " ")
  for (k = 1; k <= m; k++) {
    if (!((nw[k], 1) in X) || !((bs[k], 1) in X)) continue
    if (!q++) printf "\n%s, now / base within each run (then the median), %s | %s\n", shape, xname, yname
    line = sprintf("  %-13s", nw[k])
    for (r = 1; r <= n; r++) { rx[r] = X[nw[k], r] / X[bs[k], r]; line = line sprintf(" %5.2f", rx[r]) }
    line = line sprintf("  (%.2f) |", median(rx, n))
    for (r = 1; r <= n; r++) { ry[r] = Y[nw[k], r] / Y[bs[k], r]; line = line sprintf(" %5.2f", ry[r]) }
    print line sprintf("  (%.2f)", median(ry, n))
  }
}
BEGIN {
  np = split("server relay-c record-plain record base-plain base-record", paths, " ")
  nb = split("server relay-c tee-c plain validate sanitize defaults bare base-plain base-validate base-sanitize base-defaults", bpaths, " ")
}
