package sanitize_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
	"github.com/codexrec/codexrec/sanitize"
)

// denseTraffic is the committed fixtures' frames (fixtureTraffic) with a frame
// holding a secret after every two: the generated corpus's secrets in their
// placements (real keys, tokens, command lines; every encoding), taken in turn.
func denseTraffic(b *testing.B) [][]byte {
	var secret [][]byte
	for _, c := range corpus.GenCases(corpus.CommittedKeys()) {
		if c.Secret == nil {
			continue
		}
		for _, f := range c.Frames {
			if f.Dir != "stderr" {
				secret = append(secret, []byte(f.Line+"\n"))
			}
		}
	}
	var out [][]byte
	k := 0
	for i, l := range fixtureTraffic(b) {
		out = append(out, l)
		if i%2 == 1 {
			out = append(out, secret[k%len(secret)])
			k++
		}
	}
	return out
}

// BenchmarkSanitizeDense measures the sanitizer as record runs it (each frame
// knowing the next) and the guard (its detecting pass, over the sanitized
// recording: it must find nothing) on ordinary traffic (the committed fixtures) and
// on secret-dense traffic (the same with a secret in one frame of three), in MB/s
// and MB per CPU-second, against copying the bytes in the same run.
func BenchmarkSanitizeDense(b *testing.B) {
	z, err := sanitize.New(sanitize.Options{Salt: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct {
		name  string
		lines func(*testing.B) [][]byte
	}{{"ordinary", fixtureTraffic}, {"dense", denseTraffic}} {
		var lines [][]byte
		var valid []bool
		var total int64
		var file []byte
		load := func(b *testing.B) {
			if lines != nil {
				return
			}
			lines = in.lines(b)
			for i, l := range lines {
				total += int64(len(l))
				valid = append(valid, gjson.ValidBytes(bytes.TrimSuffix(l, []byte("\n"))))
				var next []byte
				if i+1 < len(lines) {
					next = lines[i+1]
				}
				out, _ := z.FrameFollowedBy(l, valid[i], next)
				if valid[i] {
					file = fmt.Appendf(file, `{"type":"frame","seq":%d,"dir":"s2c","msg":%s}`+"\n", i+1, bytes.TrimSuffix(out, []byte("\n")))
				} else {
					file = fmt.Appendf(file, `{"type":"frame","seq":%d,"dir":"s2c","kind":"raw","raw":%s}`+"\n", i+1, q(string(bytes.TrimSuffix(out, []byte("\n")))))
				}
			}
			z.ForgetStreams()
		}
		measure := func(b *testing.B, n int64, op func()) {
			load(b)
			if n == 0 {
				n = total
			}
			b.SetBytes(n)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				op()
			}
			cpu := cpuTime() - cpu0
			b.StopTimer()
			b.ReportMetric(float64(n*int64(b.N))/1e6/cpu.Seconds(), "MB/cpu-s")
		}
		b.Run(in.name+"/baseline-copy", func(b *testing.B) {
			buf := make([]byte, 0, 8<<20)
			measure(b, 0, func() {
				buf = buf[:0]
				for _, l := range lines {
					buf = append(buf, l...)
				}
			})
		})
		b.Run(in.name+"/sanitize-lookahead", func(b *testing.B) {
			measure(b, 0, func() {
				for i, l := range lines {
					var next []byte
					if i+1 < len(lines) {
						next = lines[i+1]
					}
					z.FrameFollowedBy(l, valid[i], next)
				}
				z.ForgetStreams()
			})
		})
		b.Run(in.name+"/guard", func(b *testing.B) {
			load(b)
			measure(b, int64(len(file)), func() {
				if leaks, err := z.GuardFindings(file); err != nil || len(leaks) > 0 {
					b.Fatalf("%v %v", err, leaks)
				}
			})
		})
	}
}
