package sanitize_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/sanitize"
)

var realMix [][]byte

// realTraffic is a real session of the newest codex (see runRealSession), run once
// per benchmark process.
func realTraffic(b *testing.B) [][]byte {
	if realMix == nil {
		for _, l := range runRealSession(b, codexbin.Newest).lines {
			realMix = append(realMix, []byte(l+"\n"))
		}
	}
	return realMix
}

// commandOutput is one item/commandExecution/outputDelta of about size bytes of
// clean build and listing output, JSON-escaped as the server sends it.
func commandOutput(size int, secretEvery int) []byte {
	lines := []string{
		"drwxr-xr-x  5 dev dev  4096 Nov 29 10:36 internal",
		"-rw-r--r--  1 dev dev 12873 Nov 29 10:36 go.sum",
		"ok  \tcodexrec/internal/wire\t0.412s\tcoverage: 87.5% of statements",
		"2026-11-29T10:36:20.512Z INFO request_id=019ad0f2-6a0e-7c71-8a8b-3d1f0c2e9b77 status=200 duration=12ms",
		"commit 7e6c9ac0f5d3b1e2a4c6d8e0f1a2b3c4d5e6f708 (HEAD -> main)",
		"    model: gpt-5.5, max_output_tokens=4096, cache_key: session-42",
		"src/parser.rs:118:17: warning: unused variable: `token_count`",
		`{"level":"debug","msg":"retrying","attempt":3,"backoff_ms":250}`,
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		if secretEvery > 0 && i%secretEvery == secretEvery-1 {
			b.WriteString("OPENAI_API_KEY=sk-proj-" + strings.Repeat("Ab3xZ", 30) + "\n")
			continue
		}
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
	}
	return []byte(`{"method":"item/commandExecution/outputDelta","params":{"threadId":"019ad0f2-6a0e-7c71-8a8b-3d1f0c2e9b77","turnId":"019ad0f2-6a0f-7c71-8a8b-3d1f0c2e9b77","itemId":"call_1","delta":` + q(b.String()) + `},"emittedAtMs":1795948348018}` + "\n")
}

// BenchmarkSanitize measures the sanitizer alone, the guard alone and both, in MB/s of
// frames, against two baselines measured in the same run: copying the bytes and
// validating them as JSON (the least any JSON-aware stage does). scripts/bench.sh or
// the reader turns them into ratios.
func BenchmarkSanitize(b *testing.B) {
	opts := sanitize.Options{
		Secrets: []sanitize.Secret{{Name: "ACCESS_TOKEN", Value: "fake-access-token-0123456789"}},
		Maps:    []sanitize.Map{{From: "/tmp/codexrec-capture-1/work", To: "<cwd>"}, {From: "/tmp", To: "<tmp>"}, {From: "/root", To: "<home>"}},
		Salt:    "bench",
	}
	z, err := sanitize.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	own, err := sanitize.NewOwnRulesOnly(opts)
	if err != nil {
		b.Fatal(err)
	}
	inputs := []struct {
		name  string
		lines func(b *testing.B) [][]byte
	}{
		{"fixtures", fixtureTraffic},
		{"real-mix", realTraffic},
		{"output-1MB-clean", func(*testing.B) [][]byte { return [][]byte{commandOutput(1<<20, 0)} }},
		{"output-1MB-secrets", func(*testing.B) [][]byte { return [][]byte{commandOutput(1<<20, 1000)} }},
	}
	for _, in := range inputs {
		var lines [][]byte
		var total int64
		var file []byte
		// measure runs op b.N times. The machine is shared, so besides wall-clock MB/s
		// it reports MB per CPU-second of this process: the "per core" figure.
		var valid []bool
		load := func(b *testing.B) {
			if lines != nil {
				return
			}
			lines = in.lines(b)
			for _, l := range lines {
				total += int64(len(l))
				out, _ := z.Frame(l)
				file = append(file, out...)
				valid = append(valid, gjson.ValidBytes(bytes.TrimSuffix(l, []byte("\n"))))
			}
		}
		measure := func(b *testing.B, op func()) {
			load(b)
			b.SetBytes(total)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				op()
			}
			cpu := cpuTime() - cpu0
			b.StopTimer()
			b.ReportMetric(float64(total*int64(b.N))/1e6/cpu.Seconds(), "MB/cpu-s")
		}
		b.Run(in.name+"/baseline-copy", func(b *testing.B) {
			buf := make([]byte, 0, 2<<20)
			measure(b, func() {
				buf = buf[:0]
				for _, l := range lines {
					buf = append(buf, l...)
				}
			})
		})
		b.Run(in.name+"/baseline-json-valid", func(b *testing.B) {
			measure(b, func() {
				for _, l := range lines {
					if !gjson.ValidBytes(bytes.TrimSuffix(l, []byte("\n"))) && l[0] == '{' {
						b.Fatal("invalid")
					}
				}
			})
		})
		b.Run(in.name+"/sanitize", func(b *testing.B) {
			measure(b, func() {
				for _, l := range lines {
					z.Frame(l)
				}
			})
		})
		b.Run(in.name+"/sanitize-own-rules", func(b *testing.B) {
			// The project's own rules without gitleaks': what the larger set costs.
			measure(b, func() {
				for _, l := range lines {
					own.Frame(l)
				}
			})
		})
		b.Run(in.name+"/sanitize-classified", func(b *testing.B) {
			// As record runs it: the proxy's wire.Classify has already validated the
			// line, so FrameClassified does not validate it again.
			load(b)
			measure(b, func() {
				for i, l := range lines {
					z.FrameClassified(l, valid[i])
				}
			})
		})
		b.Run(in.name+"/sanitize-lookahead", func(b *testing.B) {
			// As record's tap runs it: each frame knowing the next (one frame of
			// lookahead for deltas).
			load(b)
			measure(b, func() {
				for i, l := range lines {
					var next []byte
					if i+1 < len(lines) {
						next = lines[i+1]
					}
					z.FrameFollowedBy(l, valid[i], next)
				}
			})
		})
		b.Run(in.name+"/guard", func(b *testing.B) {
			measure(b, func() {
				if leaks, err := z.Scan(bytes.NewReader(file)); err != nil || len(leaks) > 0 {
					b.Fatalf("%v %v", err, leaks)
				}
			})
		})
		b.Run(in.name+"/sanitize+guard", func(b *testing.B) {
			out := make([]byte, 0, 2<<20)
			load(b)
			measure(b, func() {
				out = out[:0]
				for i, l := range lines {
					o, _ := z.FrameClassified(l, valid[i])
					out = append(out, o...)
				}
				if leaks, err := z.Scan(bytes.NewReader(out)); err != nil || len(leaks) > 0 {
					b.Fatalf("%v %v", err, leaks)
				}
			})
		})
	}
}

var fixtureMix [][]byte

// fixtureTraffic is the wire lines of every committed hermetic capture (each frame's
// message or raw line, as it crossed the proxy), repeated to about 4 MB.
func fixtureTraffic(b *testing.B) [][]byte {
	if fixtureMix != nil {
		return fixtureMix
	}
	files, err := filepath.Glob("../fixtures/hermetic/*/*.jsonl")
	if err != nil || len(files) == 0 {
		b.Fatalf("no fixtures: %v", err)
	}
	var one [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			r := gjson.ParseBytes(l)
			if r.Get("type").Str != "frame" {
				continue
			}
			if m := r.Get("msg"); m.Exists() {
				one = append(one, []byte(m.Raw+"\n"))
			} else if raw := r.Get("raw"); raw.Exists() {
				one = append(one, []byte(raw.Str+"\n"))
			}
		}
	}
	size := 0
	for size < 4<<20 {
		for _, l := range one {
			fixtureMix = append(fixtureMix, l)
			size += len(l)
		}
	}
	return fixtureMix
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
