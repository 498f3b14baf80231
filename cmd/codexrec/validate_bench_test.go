package main_test

import (
	"io"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkRecordValidation pushes the traffic mix of BenchmarkPipe through a bare cat,
// through `codexrec record --no-validate -- cat` and through `codexrec record -- cat`
// (validation on, the default) in the same run, so the cost of live validation shows
// as a ratio. cat echoes every message, so each is validated twice (c2s and s2c).
func BenchmarkRecordValidation(b *testing.B) {
	bin := plainBinary(b)
	data, msgs := trafficMix()
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"cat", nil},
		{"record-novalidate", []string{"--no-validate"}},
		{"record-validate", []string{"--codex-version", "0.171.0"}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			cmd := exec.Command("cat")
			if mode.args != nil {
				out := filepath.Join(b.TempDir(), "bench.jsonl")
				args := append(append([]string{"record", "--force", "-o", out}, mode.args...), "--", "cat")
				cmd = exec.Command(bin, args...)
			}
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			go func() {
				for range b.N {
					stdin.Write(data)
				}
				stdin.Close()
			}()
			n, err := io.Copy(io.Discard, stdout)
			b.StopTimer()
			if err != nil || n != int64(len(data)*b.N) {
				b.Fatalf("got %d bytes back, want %d (%v)", n, len(data)*b.N, err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(msgs*b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// plainBinary builds codexrec without the race detector (which the end-to-end tests'
// binary has, and which would dominate the figures).
func plainBinary(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "codexrec")
	if out, err := exec.Command("go", "build", "-o", path, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return path
}
