package codexbin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A download that stops sending is ended, naming why, instead of hanging. The server
// is a stand-in: a real registry cannot be made to stall.
func TestDownloadStalls(t *testing.T) {
	old := stallTimeout
	stallTimeout = 300 * time.Millisecond
	t.Cleanup(func() { stallTimeout = old })
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("partial"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	start := time.Now()
	_, _, err := download(context.Background(), srv.Client(), srv.URL, filepath.Join(t.TempDir(), "p.tgz"), "x", nil)
	if err == nil || !strings.Contains(err.Error(), "no data for 300ms") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s", d)
	}
}
