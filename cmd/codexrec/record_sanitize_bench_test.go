package main_test

import (
	"io"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkPipeSanitize pushes BenchmarkPipe's traffic mix through a bare cat, through
// `codexrec record --no-sanitize -- cat` and through `codexrec record -- cat` (sanitizing
// and the leak guard on, the default) in the same run, so the cost of sanitizing is the
// ratio of the last two and the proxy's overall ratio is the last against cat.
func BenchmarkPipeSanitize(b *testing.B) {
	data, msgs := trafficMix()
	for _, mode := range []string{"cat", "record-no-sanitize", "record"} {
		b.Run(mode, func(b *testing.B) {
			var cmd *exec.Cmd
			out := filepath.Join(b.TempDir(), "bench.jsonl")
			switch mode {
			case "cat":
				cmd = exec.Command("cat")
			case "record-no-sanitize":
				cmd = exec.Command(codexrecBin, "record", "--no-sanitize", "--force", "-o", out, "--", "cat")
			default:
				cmd = exec.Command(codexrecBin, "record", "--force", "-o", out, "--", "cat")
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
