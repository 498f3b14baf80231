package main_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/testing/hostile"
)

// BenchmarkReaders runs every reader on the recordings that made them go quadratic or
// hold many copies: one item of 300k deltas, one 100 MB line, 1M frames. It reports
// each command's peak RSS (through testdata/maxrss), its ratio to the bound of twice
// the file plus 64 MB (x-bound, want <= 1; diff reads a second, slightly different
// file of the same size) and its wall time; nothing is asserted (TestReadersMemoryBound
// holds smaller shapes to the bound).
// READERS_SCALE=10 divides every size by 10 for a quick run.
func BenchmarkReaders(b *testing.B) {
	bin := plainBinary(b)
	maxrss := filepath.Join(b.TempDir(), "maxrss")
	if out, err := exec.Command("go", "build", "-o", maxrss, "./testdata/maxrss").CombinedOutput(); err != nil {
		b.Fatalf("building maxrss: %v\n%s", err, out)
	}
	scale := max(envInt("READERS_SCALE", 1), 1)
	dir := b.TempDir()
	// other is a slightly different copy for diff: every aligned message differs.
	cases := []struct {
		name       string
		rec, other func() []byte
	}{
		{"deltas-300k", func() []byte { return hostile.DeltasRecording(300_000/scale, 10) },
			func() []byte { return hostile.DeltasRecording(300_000/scale, 11) }},
		{"line-100MB", func() []byte { return hostile.HugeLineRecording((100 << 20) / scale) },
			func() []byte { return hostile.HugeLineRecording((100<<20)/scale - 1) }},
		{"frames-1M", func() []byte { return hostile.FramesRecording(1_000_000 / scale) }, func() []byte {
			return bytes.ReplaceAll(hostile.FramesRecording(1_000_000/scale), []byte(`"total":`), []byte(`"totals":`))
		}},
	}
	rssOut := filepath.Join(dir, "rss")
	for _, c := range cases {
		file := filepath.Join(dir, c.name+".jsonl")
		data := c.rec()
		if err := os.WriteFile(file, data, 0o600); err != nil {
			b.Fatal(err)
		}
		size := float64(len(data))
		data = nil
		other := filepath.Join(dir, c.name+"-b.jsonl")
		if err := os.WriteFile(other, c.other(), 0o600); err != nil {
			b.Fatal(err)
		}
		for _, args := range [][]string{
			{"show", file},
			{"summary", file},
			{"check", file},
			{"validate", file},
			{"diff", file, other},
			{"view", "--force", "-o", filepath.Join(dir, "page.html"), file},
			{"export", "--force", "--format", "har", "-o", filepath.Join(dir, "out.har"), file},
			{"export", "--force", "--format", "jsonl", "-o", filepath.Join(dir, "out.jsonl"), file},
			{"export", "--force", "--format", "otlp", "-o", filepath.Join(dir, "out.otlp"), file},
			{"scan", file},
			{"replay", "--allow-unused", file},
		} {
			name := args[0]
			if name == "export" {
				name += "-" + args[3] // the format
			}
			b.Run(c.name+"/"+name, func(b *testing.B) {
				for range b.N {
					cmd := exec.Command(maxrss, append([]string{bin}, args...)...)
					cmd.Env = append(os.Environ(), "MAXRSS_OUT="+rssOut)
					cmd.Stdout, cmd.Stderr = io.Discard, io.Discard // stdin: the null device
					start := time.Now()
					cmd.Run() // findings and differences exit 1
					took := time.Since(start)
					kb, err := os.ReadFile(rssOut)
					if err != nil {
						b.Fatal(err)
					}
					n, _ := strconv.Atoi(string(bytes.TrimSpace(kb)))
					rss := float64(n) * 1024
					b.ReportMetric(rss/(1<<20), "rss-MB")
					b.ReportMetric(rss/(2*size+64<<20), "x-bound")
					b.ReportMetric(took.Seconds(), "s")
					b.ReportMetric(size/(1<<20), "file-MB")
				}
			})
		}
	}
}
