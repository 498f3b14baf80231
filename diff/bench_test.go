package diff_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/recorder"
)

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// bigRecording writes a recording of at least size bytes made of the committed plain
// capture of version repeated, each copy with its own ids (so symbol tables grow as
// in a long session) and its own seqs.
func bigRecording(b *testing.B, version, path string, size int64) {
	b.Helper()
	src, err := os.ReadFile(filepath.Join("..", "fixtures", "hermetic", version, "plain.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	var header []byte
	var frames [][]byte
	for i, line := range splitLines(src) {
		if i == 0 {
			header = line
			continue
		}
		var e struct{ Type string }
		json.Unmarshal(line, &e)
		if e.Type == "frame" {
			frames = append(frames, line)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.Write(header)
	w.WriteByte('\n')
	var written int64
	seq := 0
	seqRE := regexp.MustCompile(`^\{"type":"frame","seq":\d+`)
	for copyN := 0; written < size; copyN++ {
		ids := map[string]string{}
		for _, fr := range frames {
			seq++
			line := seqRE.ReplaceAll(fr, []byte(fmt.Sprintf(`{"type":"frame","seq":%d`, seq)))
			line = uuidRE.ReplaceAllFunc(line, func(u []byte) []byte {
				if r, ok := ids[string(u)]; ok {
					return []byte(r)
				}
				r := fmt.Sprintf("%08x-0000-7000-8000-%012x", copyN, len(ids))
				ids[string(u)] = r
				return []byte(r)
			})
			n, _ := w.Write(line)
			w.WriteByte('\n')
			written += int64(n + 1)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

const benchSize = 10 << 20

// cpuSeconds is the process's user and system CPU time so far. The machine the
// benchmarks run on is shared, so wall time per op varies with its load; CPU time per
// op (cpu-s/op) does much less.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// measureCPU reports cpu-s/op when the benchmark loop ends; call it after ResetTimer.
func measureCPU(b *testing.B) func() {
	start := cpuSeconds()
	return func() { b.ReportMetric((cpuSeconds()-start)/float64(b.N), "cpu-s/op") }
}

func benchFiles(b *testing.B) (old, new string, bytes int64) {
	dir := b.TempDir()
	old, new = filepath.Join(dir, "old.jsonl"), filepath.Join(dir, "new.jsonl")
	bigRecording(b, codexbin.Oldest, old, benchSize)
	bigRecording(b, codexbin.Newest, new, benchSize)
	for _, p := range []string{old, new} {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		bytes += fi.Size()
	}
	return old, new, bytes
}

// BenchmarkDiff10MB diffs two 10 MB recordings of the plain scenario repeated, one
// from each pinned version (so every turn carries the newer fields): load, normalise,
// align, compare, render. heap/input is the live heap after loading both sessions
// divided by their size on disk.
func BenchmarkDiff10MB(b *testing.B) {
	old, nw, size := benchFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	defer measureCPU(b)()
	for i := 0; i < b.N; i++ {
		o, n, err := diff.LoadFiles(old, nw, diff.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.StopTimer()
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/float64(size), "heap/input")
			b.StartTimer()
		}
		r := diff.Compare(o, n)
		if r.Same {
			b.Fatal("versions compare equal")
		}
		if err := r.WriteText(io.Discard, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadBaseline only reads the same two recordings with the recorder's
// streaming reader, one after the other: the floor any diff pays.
func BenchmarkReadBaseline(b *testing.B) {
	old, nw, size := benchFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	defer measureCPU(b)()
	for i := 0; i < b.N; i++ {
		for _, p := range []string{old, nw} {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			rd, err := recorder.NewReader(f, p)
			if err != nil {
				b.Fatal(err)
			}
			for _, err := range rd.Entries() {
				if err != nil {
					b.Fatal(err)
				}
			}
			f.Close()
		}
	}
}

// BenchmarkUnmarshalBaseline reads the recordings and decodes every message with
// encoding/json into generic values: what a naive diff would start from.
func BenchmarkUnmarshalBaseline(b *testing.B) {
	old, nw, size := benchFiles(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	defer measureCPU(b)()
	for i := 0; i < b.N; i++ {
		for _, p := range []string{old, nw} {
			rec, err := recorder.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range rec.Frames() {
				if js := e.JSON(); js != nil {
					var v any
					if err := json.Unmarshal(js, &v); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
}
