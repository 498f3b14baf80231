package wsreplay_test

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/wire"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsreplay"
)

// nodeClient is a client in a third WebSocket implementation: Node's built-in
// WebSocket (undici, behind --experimental-websocket in Node 20). It sends
// initialize and initialized, prints the response to initialize, and closes.
const nodeClient = `
const ws = new WebSocket(process.argv[1]);
ws.onopen = () => ws.send(JSON.stringify({id: 1, method: "initialize", params: {clientInfo: {name: "node", title: "t", version: "1"}}}));
ws.onmessage = (e) => {
  const m = JSON.parse(e.data);
  if (m.id === 1) { console.log(e.data); ws.send('{"method":"initialized"}'); setTimeout(() => ws.close(1000), 200); }
};
ws.onerror = (e) => { console.error("error", e.message); process.exit(1); };
ws.onclose = () => process.exit(0);
`

// A recording made through the relay from Node's WebSocket client, and replayed to
// it: the replayed response is the recorded one, byte for byte. An extra check
// beyond the gorilla/websocket client the other tests use: skipped without node,
// which the CI image need not have.
func TestNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	run := func(url string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, node, "--experimental-websocket", "--no-warnings", "-e", nodeClient, url).Output()
		if err != nil {
			t.Fatalf("node client on %s: %v\n%s", url, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	var recordedReply string
	rec := recordRun(t, "0.171.0", nil, func(addr wsproxy.Addr, _ string) {
		recordedReply = run(addr.String())
	})
	if len(rec) != 1 {
		t.Fatalf("recordings %v", rec)
	}
	if got := recorded(t, rec[0], wire.ServerToClient); len(got) == 0 || !bytes.Equal(got[0], []byte(recordedReply)) {
		t.Fatalf("the node client got %q; the recording's first s2c message differs", recordedReply)
	}
	srv := &wsreplay.Server{Recordings: rec}
	addr := serve(t, srv, "ws")
	if got := run(addr.String()); got != recordedReply {
		t.Errorf("replayed %q, recorded %q", got, recordedReply)
	}
	if r := waitResults(t, srv, 1); r[0].Err != nil {
		t.Errorf("replay: %v", r[0].Err)
	}
}
