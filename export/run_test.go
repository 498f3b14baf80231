package export_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/codexrec/codexrec/export"
	"github.com/codexrec/codexrec/recorder"
)

// TestRun: one entry point writes to the writer (Out "" or "-"), to a new file
// (fs.ErrExist unless Replace) or to an OTLP endpoint, telling Warn of each
// recording; an endpoint with another format is refused before anything is read.
func TestRun(t *testing.T) {
	var want bytes.Buffer
	if err := export.WriteFiles(&want, export.JSONL, fixtures[:2], export.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{"", "-"} {
		var got bytes.Buffer
		if err := export.Run(context.Background(), &got, fixtures[:2], export.RunOptions{Format: export.JSONL, Out: out}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("Out %q: Run's stream differs from WriteFiles'", out)
		}
	}

	path := filepath.Join(t.TempDir(), "out.jsonl")
	o := export.RunOptions{Format: export.JSONL, Out: path}
	var stdout bytes.Buffer
	if err := export.Run(context.Background(), &stdout, fixtures[:2], o); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, want.Bytes()) || stdout.Len() != 0 {
		t.Errorf("file (%v) differs from WriteFiles' output, or %d bytes went to the writer", err, stdout.Len())
	}
	if err := export.Run(context.Background(), io.Discard, fixtures[:2], o); !errors.Is(err, fs.ErrExist) {
		t.Errorf("existing file: %v, want fs.ErrExist", err)
	}
	o.Replace = true
	if err := export.Run(context.Background(), io.Discard, fixtures[:2], o); err != nil {
		t.Errorf("Replace: %v", err)
	}

	var posts atomic.Int32
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" && r.Method == http.MethodPost {
			posts.Add(1)
		}
	}))
	defer rx.Close()
	var warned []string
	push := export.RunOptions{Format: export.OTLP, Endpoint: rx.URL,
		Warn: func(name string, _ []recorder.Problem) { warned = append(warned, name) }}
	if err := export.Run(context.Background(), &stdout, fixtures[:2], push); err != nil {
		t.Fatal(err)
	}
	if posts.Load() != 1 || len(warned) != 2 || stdout.Len() != 0 {
		t.Errorf("push: %d posts, warned of %q, %d bytes written; want 1 post, 2 recordings, none", posts.Load(), warned, stdout.Len())
	}
	push.Format = export.HAR
	if err := export.Run(context.Background(), io.Discard, []string{"missing.jsonl"}, push); !errors.Is(err, export.ErrEndpointFormat) {
		t.Errorf("endpoint with HAR: %v, want ErrEndpointFormat", err)
	}
}
