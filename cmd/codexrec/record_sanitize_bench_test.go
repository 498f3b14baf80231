package main_test

import (
	"io"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkPipeSanitize pushes BenchmarkPipe's traffic mix through a bare cat and
// through `codexrec record -- cat` with sanitizing and the leak guard off, with the
// guard only, and with both (the default), each also without schema validation, in
// the same run: the ratios between them are the cost of each stage. The guard reads
// the finished file after the client is done, and its time is inside the measurement.
func BenchmarkPipeSanitize(b *testing.B) {
	data, msgs := trafficMix()
	modes := map[string][]string{
		"record-bare":           {"--no-validate", "--no-sanitize", "--no-leak-guard"},
		"record-guard-only":     {"--no-validate", "--no-sanitize"},
		"record-sanitize+guard": {"--no-validate"},
		"record-validate":       {"--no-sanitize", "--no-leak-guard"},
		"record-default":        {},
	}
	for _, mode := range []string{"cat", "record-bare", "record-guard-only", "record-sanitize+guard", "record-validate", "record-default"} {
		b.Run(mode, func(b *testing.B) {
			var cmd *exec.Cmd
			out := filepath.Join(b.TempDir(), "bench.jsonl")
			if mode == "cat" {
				cmd = exec.Command("cat")
			} else {
				args := append(append([]string{"record", "--force", "-o", out}, modes[mode]...), "--", "cat")
				cmd = exec.Command(codexrecBin, args...)
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
			if err != nil || n != int64(len(data)*b.N) {
				b.Fatalf("got %d bytes back, want %d (%v)", n, len(data)*b.N, err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err) // the leak guard refusing would show here (exit 3)
			}
			b.StopTimer()
			b.ReportMetric(float64(msgs*b.N)/b.Elapsed().Seconds(), "msgs/s")
			if mode != "cat" {
				assertNoFrameLost(b, out, int64(msgs*b.N))
			}
		})
	}
}
