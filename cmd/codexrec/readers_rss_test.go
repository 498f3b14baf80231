package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
)

// TestReadersMemoryBound runs every reader, built without the race detector, on
// hostile shapes a few tens of MB large (one item of 100k deltas, one 32 MB line,
// 200k frames) and holds each command's peak RSS to twice the file plus 64 MB
// (diff: twice both files); replay's too, which keeps every frame indexed while it
// serves them. The peak is the kernel's ru_maxrss of the command,
// taken by testdata/maxrss, which starts it from a small process (a child started
// from this one would inherit this process's peak). BenchmarkReaders measures the
// full-size shapes.
func TestReadersMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds codexrec and reads about 200 MB of recordings")
	}
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss is in kilobytes on Linux only")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "codexrec")
	maxrss := filepath.Join(dir, "maxrss")
	for _, b := range [][]string{{"-o", bin, "."}, {"-o", maxrss, "./testdata/maxrss"}} {
		if out, err := exec.Command("go", append([]string{"build"}, b...)...).CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", b, err, out)
		}
	}
	shapes := []struct {
		name   string
		old, b []byte // b: a slightly different copy, for diff
	}{
		{"deltas-100k", hostile.DeltasRecording(100_000, 10), hostile.DeltasRecording(100_000, 11)},
		{"line-32MB", hostile.HugeLineRecording(32 << 20), hostile.HugeLineRecording(32<<20 - 1)},
		{"frames-200k", hostile.FramesRecording(200_000),
			bytes.ReplaceAll(hostile.FramesRecording(200_000), []byte(`"total":`), []byte(`"totals":`))},
	}
	rssOut := filepath.Join(dir, "rss")
	for _, sh := range shapes {
		file, other := filepath.Join(dir, sh.name+".jsonl"), filepath.Join(dir, sh.name+"-b.jsonl")
		if err := os.WriteFile(file, sh.old, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(other, sh.b, 0o600); err != nil {
			t.Fatal(err)
		}
		size, both := len(sh.old), len(sh.old)+len(sh.b)
		for _, c := range []struct {
			args  []string
			bytes int // what the bound is twice of
		}{
			{args: []string{"show", file}, bytes: size},
			{args: []string{"summary", file}, bytes: size},
			{args: []string{"check", file}, bytes: size},
			{args: []string{"validate", file}, bytes: size},
			{args: []string{"scan", file}, bytes: size},
			{args: []string{"view", "--force", "-o", filepath.Join(dir, "page.html"), file}, bytes: size},
			{args: []string{"export", "--force", "--format", "har", "-o", filepath.Join(dir, "out.har"), file}, bytes: size},
			{args: []string{"export", "--force", "--format", "jsonl", "-o", filepath.Join(dir, "out.jsonl"), file}, bytes: size},
			{args: []string{"export", "--force", "--format", "otlp", "-o", filepath.Join(dir, "out.otlp"), file}, bytes: size},
			{args: []string{"diff", file, other}, bytes: both},
			{args: []string{"replay", "--allow-unused", file}, bytes: size},
		} {
			cmd := exec.Command(maxrss, append([]string{bin}, c.args...)...)
			cmd.Env = append(os.Environ(), "MAXRSS_OUT="+rssOut)
			if devnull, err := os.Open(os.DevNull); err == nil {
				defer devnull.Close()
				cmd.Stdin = devnull
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			os.Remove(rssOut)
			err := cmd.Run() // findings and differences exit 1
			kb, rerr := os.ReadFile(rssOut)
			if rerr != nil {
				t.Fatalf("%s %s: no peak RSS (%v): %v\n%s", sh.name, c.args[0], rerr, err, stderr.Bytes())
			}
			n, _ := strconv.Atoi(string(bytes.TrimSpace(kb)))
			rss, bound := n<<10, 2*c.bytes+64<<20
			name := c.args[0]
			if name == "export" {
				name += "-" + c.args[3] // the format
			}
			t.Logf("%-12s %-12s %4d MB (bound %d MB)", sh.name, name, rss>>20, bound>>20)
			if rss > bound {
				t.Errorf("%s %s: peak RSS %d MB, over the bound of twice %d MB plus 64 MB", sh.name, name, rss>>20, c.bytes>>20)
			}
		}
	}
}
