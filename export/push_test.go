package export_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
