package serve_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/serve"
)

// TestRun: an address that is not loopback is refused (ErrNotLoopback) unless
// AllowRemote, a missing directory before listening; otherwise Ready gets the
// page's address with its token, its API answers (and not without it), and Run returns nil once its
// context ends.
func TestRun(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		err := serve.Run(context.Background(), serve.RunOptions{Addr: addr, Ready: func(string) { t.Error("listened") }})
		if !errors.Is(err, serve.ErrNotLoopback) {
			t.Errorf("%s: %v, want ErrNotLoopback", addr, err)
		}
	}
	missing := t.TempDir() + "/missing"
	if err := serve.Run(context.Background(), serve.RunOptions{Options: serve.Options{Dirs: []string{missing}},
		Ready: func(string) { t.Error("listened") }}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve.Run(ctx, serve.RunOptions{Options: serve.Options{Dirs: []string{t.TempDir()}}, Ready: func(u string) { urls <- u }})
	}()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("not ready after 10s")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(url, "/?token=") {
		t.Fatalf("address %q", url)
	}
	resp, err := http.Get(strings.Replace(url, "/?", "/api/sessions?", 1))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("sessions: %s", resp.Status)
	}
	if resp, err := http.Get(strings.Replace(url, "/?token=", "/api/sessions?token=x", 1)); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("the API answered with a wrong token")
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}
