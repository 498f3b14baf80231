package wsreplay_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/codexrec/codexrec/internal/testing/wstest"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsreplay"
)

// A client that stops reading in the middle of one long message (no queue bound
// sees it: the message is the only one) is disconnected once nothing of it has
// been sent for a while, and its share of the memory budget goes to the next
// client, which gets the whole message. Before, it held the budget for as long as
// it stayed connected and every other client waited. The recording is written by
// hand: a real app-server's answer of this size needs a model.
func TestReplayStuckMidMessageDisconnected(t *testing.T) {
	const size = 48 << 20 // past the kernel's socket buffers on loopback
	path := filepath.Join(t.TempDir(), "big.jsonl")
	body := `{"type":"header","format":1,"codexrec":"test","started":"2026-12-02T09:00:00Z","command":["codex","app-server"]}` + "\n" +
		`{"type":"frame","seq":1,"t":0.001,"dir":"c2s","kind":"request","method":"initialize","id":1,"msg":{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","title":"t","version":"1"}}}}` + "\n" +
		`{"type":"frame","seq":2,"t":0.002,"dir":"s2c","kind":"response","method":"initialize","id":1,"msg":{"id":1,"result":{"userAgent":"` +
		strings.Repeat("x", size) + `"}}}` + "\n" +
		`{"type":"trailer","ended":"client-eof","exitCode":0,"duration":1,"frames":{"c2s":1,"s2c":1,"stderr":0}}` + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	// The budget holds one such message: the second client waits for the first's room.
	srv := &wsreplay.Server{Recordings: []string{path}, Loop: true, MemoryBudget: size + size/2}
	addr := serve(t, srv, "ws")
	dial := func() *websocket.Conn {
		c, _, err := wstest.Dialer(addr).Dial(wsproxy.DialURL(addr, ""), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(-1)
		if err := c.WriteMessage(websocket.TextMessage, []byte(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","title":"t","version":"1"}}}`)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	stuck := dial() // never reads
	defer stuck.Close()
	time.Sleep(300 * time.Millisecond)
	reader := dial()
	defer reader.Close()
	reader.SetReadDeadline(time.Now().Add(40 * time.Second))
	_, p, err := reader.ReadMessage()
	if err != nil {
		t.Fatalf("the reading client got nothing while the other held the budget: %v", err)
	}
	if len(p) < size {
		t.Fatalf("the reading client got %d bytes, want the whole message (%d)", len(p), size)
	}
	reader.Close()
	for _, r := range waitResults(t, srv, 2) {
		if r.Conn == 1 && !errors.Is(r.Err, wsproxy.ErrSlowClient) {
			t.Errorf("the stuck connection's result: %v, want %v", r.Err, wsproxy.ErrSlowClient)
		}
	}
}
