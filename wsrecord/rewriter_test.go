package wsrecord

import (
	"bytes"
	"testing"
)

// The child's private socket never reaches stderr: its URL is replaced by the
// relay's, also when a line arrives in pieces.
func TestSocketRewriter(t *testing.T) {
	var out bytes.Buffer
	r := &socketRewriter{w: &out, url: "ws://127.0.0.1:4500"}
	r.Write([]byte("error at unix:///tmp/codexrec-app-server-12"))
	r.Write([]byte("34/app-server.sock: gone\nnext line\nunix:///tmp/codexrec-app-server-9/app-server.sock"))
	r.flush()
	want := "error at ws://127.0.0.1:4500: gone\nnext line\nws://127.0.0.1:4500"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
