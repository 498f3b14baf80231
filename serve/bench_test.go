package serve_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/serve"
	"github.com/codexrec/codexrec/wire"
)

// largeRecording writes a recording of at least size bytes into dir, made of the
// frames of a real session repeated with seq and time continued, as a long session
// would have them.
func largeRecording(tb testing.TB, dir string, size int64) string {
	tb.Helper()
	src, err := recorder.ReadFile(filepath.Join("..", "fixtures", "hermetic", "0.171.0", "approval-accept.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "large.jsonl")
	w, err := recorder.Create(path, src.Header, recorder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	frames := src.Frames()
	var seq int64
	var base time.Duration
	for {
		for _, e := range frames {
			seq++
			if err := w.WriteFrame(&wire.Frame{Seq: seq, Time: base + e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg}); err != nil {
				tb.Fatal(err)
			}
		}
		base += frames[len(frames)-1].Time
		w.Flush()
		fi, err := os.Stat(w.TempPath())
		if err != nil {
			tb.Fatal(err)
		}
		if fi.Size() >= size {
			break
		}
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientEOF}); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkLarge10MB measures a 10 MiB recording (about 23,000 frames) served:
// reading it into the timeline (ingest: masking every frame, building rows) against
// recorder.ReadFile of the same file as the same-run baseline, and one page of 200
// rows, unfiltered and under a text filter, as the browser asks for them.
func BenchmarkLarge10MB(b *testing.B) {
	dir := b.TempDir()
	path := largeRecording(b, dir, 10<<20)
	b.Run("readfile-baseline", func(b *testing.B) {
		for b.Loop() {
			if _, err := recorder.ReadFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ingest", func(b *testing.B) {
		for b.Loop() {
			srv, err := serve.New(serve.Options{Dirs: []string{dir}, Poll: 5 * time.Millisecond})
			if err != nil {
				b.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			waitList(b, hs, srv, "the session read", func(l sessionList) bool { return len(l.Sessions) == 1 && l.Sessions[0].Ended != "" })
			hs.Close()
			srv.Close()
		}
	})
	srv, err := serve.New(serve.Options{Dirs: []string{dir}, Poll: 5 * time.Millisecond})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	l := waitList(b, hs, srv, "the session read", func(l sessionList) bool { return len(l.Sessions) == 1 && l.Sessions[0].Ended != "" })
	id := l.Sessions[0].ID
	for _, tc := range []struct{ name, query string }{
		{"page", "&from=12000&limit=200"},
		{"page-filtered", "&from=0&limit=200&q=hello+from"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var n int64
			for b.Loop() {
				resp, err := http.Get(hs.URL + "/api/frames?token=" + srv.Token() + "&id=" + id + tc.query)
				if err != nil {
					b.Fatal(err)
				}
				n, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			b.ReportMetric(float64(n), "bytes/page")
		})
	}
}
