package check_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// longSession writes a recording of one server lifetime holding turns copies of the
// real approval fixture's turn (turn/start to turn/completed, with its approval,
// deltas and stderr), each with fresh turn, item and request ids, so every copy is a
// well-formed turn of its own. It returns the path and the file size.
func longSession(t testing.TB, turns int) (string, int64) {
	t.Helper()
	rec := fixture(t, "approval-accept")
	first, last := -1, -1
	for i, e := range rec.Entries {
		if e.Type != recorder.TypeFrame {
			continue
		}
		if first < 0 && e.Dir == wire.ClientToServer && e.Msg.Method == "turn/start" {
			first = i
		}
		if e.Msg.Method == "turn/completed" {
			last = i
		}
	}
	if first < 0 || last < first {
		t.Fatal("fixture has no turn")
	}
	window := rec.Entries[first : last+1]
	var ids []string // quoted ids to rename in each copy
	for _, e := range window {
		msg := e.JSON()
		for _, p := range []string{"params.turn.id", "result.turn.id", "params.item.id"} {
			if v := gjson.GetBytes(msg, p); v.Type == gjson.String {
				ids = append(ids, strconv.Quote(v.Str))
			}
		}
	}
	out := &recorder.Recording{Header: rec.Header, Trailer: rec.Trailer}
	var seq int64
	add := func(e recorder.Entry) {
		if e.Type == recorder.TypeFrame {
			seq++
			e.Seq = seq
		} else if e.Seq != 0 {
			e.Seq = seq
		}
		out.Entries = append(out.Entries, e)
	}
	for _, e := range rec.Entries[:first] {
		add(e)
	}
	for k := 0; k < turns; k++ {
		suffix := fmt.Sprintf("-%d", k)
		for _, e := range window {
			if e.Type != recorder.TypeFrame {
				continue
			}
			line := e.Line
			for _, id := range ids {
				line = bytes.ReplaceAll(line, []byte(id), []byte(id[:len(id)-1]+suffix+`"`))
			}
			if e.Msg.ID != "" || e.Msg.Method == "serverRequest/resolved" {
				line = renumber(line, k)
			}
			e.Line = line
			e.Msg = wire.Classify(line)
			add(e)
		}
	}
	for _, e := range rec.Entries[last+1:] {
		add(e)
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := writeRecording(path, out); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, fi.Size()
}

// renumber gives copy k of a request, its response and serverRequest/resolved ids of
// their own: client ids k*1000+id, server ids the same, so no two copies collide.
func renumber(line []byte, k int) []byte {
	key := `"id":`
	if gjson.GetBytes(line, "method").Str == "serverRequest/resolved" {
		key = `"requestId":`
	}
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return line
	}
	j := i + len(key)
	end := j
	for end < len(line) && line[end] >= '0' && line[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(string(line[j:end]))
	if err != nil {
		return line // a string id: leave it
	}
	out := append([]byte{}, line[:j]...)
	out = strconv.AppendInt(out, int64(k*1000+n+1000), 10)
	return append(out, line[end:]...)
}

func TestLongSessionIsClean(t *testing.T) {
	path, _ := longSession(t, 50)
	res, err := (&check.Checker{}).CheckFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Turns != 50 {
		t.Errorf("turns = %d, want 50", res.Turns)
	}
	for _, f := range res.Findings {
		if f.Severity >= check.Warning {
			t.Errorf("%s %s %v: %s", f.Severity, f.Rule, f.Seqs, f.Message)
		}
	}
}

// heapAtEOF reads like r and, when r is exhausted, records the live heap: everything
// the checker still holds then is its state, since every entry has been handled.
type heapAtEOF struct {
	r    io.Reader
	heap uint64
}

func (h *heapAtEOF) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err == io.EOF && h.heap == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		h.heap = ms.HeapAlloc
	}
	return n, err
}

// TestMemoryDoesNotGrowWithRecording checks a recording ten times longer (same
// shape, all turns closed) and expects the live heap at the end to stay flat.
func TestMemoryDoesNotGrowWithRecording(t *testing.T) {
	heap := func(turns int) (uint64, int64) {
		path, size := longSession(t, turns)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		h := &heapAtEOF{r: f}
		if _, err := (&check.Checker{}).Check(h, path); err != nil {
			t.Fatal(err)
		}
		return h.heap, size
	}
	small, smallSize := heap(100)
	big, bigSize := heap(1000)
	t.Logf("live heap at EOF: %d KiB for %d KiB, %d KiB for %d KiB", small>>10, smallSize>>10, big>>10, bigSize>>10)
	// Closed turns are remembered in a ring of bounded size; 1 MiB of slack covers the
	// GC's own noise while catching anything that keeps a byte per frame.
	if big > small+1<<20 {
		t.Errorf("live heap grew from %d KiB to %d KiB for a recording %dx longer", small>>10, big>>10, bigSize/smallSize)
	}
}

func benchFile(b *testing.B) (string, int64) {
	_, base := longSession(b, 1)
	_, two := longSession(b, 2)
	turns := int((10<<20-base)/(two-base)) + 1
	return longSession(b, turns)
}

// BenchmarkCheck10MB checks a recording of about 10 MB; BenchmarkRead10MB is the
// baseline: the same file read entry by entry with recorder.NewReader and nothing else.
func BenchmarkCheck10MB(b *testing.B) { benchCheck(b, &check.Checker{}) }

// BenchmarkCheck10MBSchema is the same with schema validation on, as codexrec check
// runs by default.
func BenchmarkCheck10MBSchema(b *testing.B) {
	benchCheck(b, &check.Checker{Schema: check.SchemaValidator("", "")})
}

// cpuTime is the process's user and system CPU time so far. The machine these run on
// is shared, so wall time swings with its load; CPU time per op is the steadier figure.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func benchCheck(b *testing.B, ck *check.Checker) {
	path, size := benchFile(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		res, err := ck.CheckFile(path)
		if err != nil {
			b.Fatal(err)
		}
		if res.Count(check.Warning) != 0 {
			b.Fatalf("findings in a clean recording: %v", res.Findings[0])
		}
	}
}

func BenchmarkRead10MB(b *testing.B) {
	path, size := benchFile(b)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		rd, err := recorder.NewReader(f, path)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rd.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
	}
}
