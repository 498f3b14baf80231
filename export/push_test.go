package export_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/export"
)

// TestPushOTLP posts the traces to an OTLP/HTTP receiver. No OpenTelemetry collector
// is installed where the tests run, so the receiver is a stand-in that keeps the body
// for the test to decode with the OTLP protobuf types, and answers as a collector does.
func TestPushOTLP(t *testing.T) {
	recs := readAll(t, fixtures[0])
	var body []byte
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "unsupported", http.StatusUnsupportedMediaType)
			return
		}
		body, _ = io.ReadAll(r.Body) // decoded below, on the test's goroutine
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"partialSuccess":{}}`)
	}))
	defer rx.Close()
	if err := export.PushOTLP(context.Background(), nil, rx.URL, recs, export.Options{}); err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, rs := range decodeOTLP(t, body).ResourceSpans {
		got += len(rs.ScopeSpans[0].Spans)
	}
	if got == 0 {
		t.Fatal("the receiver got no span")
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad payload\nmore", http.StatusBadRequest)
	}))
	defer bad.Close()
	err := export.PushOTLP(context.Background(), nil, bad.URL+"/custom", recs, export.Options{})
	if err == nil || !strings.Contains(err.Error(), "400 Bad Request: bad payload") || strings.Contains(err.Error(), "more") {
		t.Errorf("a refused push: %v", err)
	}
	for _, ep := range []string{"localhost:4318", "ftp://x/", "http://"} {
		if err := export.PushOTLP(context.Background(), nil, ep, recs, export.Options{}); err == nil || !strings.Contains(err.Error(), "want http://") {
			t.Errorf("endpoint %q: %v", ep, err)
		}
	}
}

// PushOTLPFiles streams the document WriteFiles writes; a recording it cannot read
// is the error, and the receiver gets no complete document.
func TestPushOTLPFiles(t *testing.T) {
	var want bytes.Buffer
	if err := export.WriteFiles(&want, export.OTLP, fixtures[:2], export.Options{Reveal: true}, nil); err != nil {
		t.Fatal(err)
	}
	var bodies [][]byte
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		bodies = append(bodies, b)
	}))
	defer rx.Close()
	if err := export.PushOTLPFiles(context.Background(), nil, rx.URL, fixtures[:2], export.Options{Reveal: true}, 0, nil); err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 1 || !bytes.Equal(bodies[0], want.Bytes()) {
		t.Fatalf("the receiver got %d bodies, not the document WriteFiles writes", len(bodies))
	}
	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	err := export.PushOTLPFiles(context.Background(), nil, rx.URL, []string{fixtures[0], missing}, export.Options{}, time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("a missing recording: %v", err)
	}
	if len(bodies) != 1 {
		t.Errorf("a complete document was received for a push that failed (%d bodies)", len(bodies))
	}
}

// A receiver that takes the body and never answers is given up on after the stall,
// with an error that says so.
func TestPushOTLPFilesStall(t *testing.T) {
	done := make(chan struct{})
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-done
	}))
	defer rx.Close()
	defer close(done)
	start := time.Now()
	err := export.PushOTLPFiles(context.Background(), nil, rx.URL, fixtures[:1], export.Options{}, 200*time.Millisecond, nil)
	if err == nil || !strings.Contains(err.Error(), "no progress for 200ms") {
		t.Fatalf("a receiver that never answers: %v", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("gave up after %s", took)
	}
}
