package recorder_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// A WebSocket message is not a line: pretty-printed JSON with raw line breaks must
// come back byte for byte and must not split the recording's line.
func TestMessageWithLineBreaks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ws.jsonl")
	info := &recorder.SocketInfo{Transport: "ws", Session: "s1", Connection: 2, Path: "/",
		Headers: map[string][]string{"Authorization": {"<redacted>"}}}
	w, err := recorder.Create(path, recorder.Header{Codexrec: "test", Socket: info}, recorder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		"{\n  \"id\": 1,\r\n  \"method\": \"thread/list\",\n  \"params\": {}\n}",
		`{"method":"initialized"}`,
	}
	for i, m := range msgs {
		f := &wire.Frame{Seq: int64(i + 1), Dir: wire.ClientToServer, Line: []byte(m)}
		f.Msg = wire.Classify(f.Line)
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recorder.Trailer{Ended: recorder.EndClientClosed}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 4 { // header, two frames, trailer
		t.Fatalf("recording has %d lines, want 4:\n%s", len(lines), b)
	}
	for i, l := range lines {
		if !json.Valid(l) {
			t.Errorf("line %d is not JSON: %s", i+1, l)
		}
	}
	rec, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := rec.Frames()
	for i, m := range msgs {
		if string(got[i].Line) != m {
			t.Errorf("frame %d = %q, want %q", i+1, got[i].Line, m)
		}
	}
	if got[0].Msg.Kind != wire.KindRequest || got[0].Msg.Method != "thread/list" {
		t.Errorf("frame 1 msg = %+v", got[0].Msg)
	}
	if s := rec.Header.Socket; s == nil || s.Connection != 2 || s.Session != "s1" || s.Headers["Authorization"][0] != "<redacted>" {
		t.Errorf("header socket = %+v", rec.Header.Socket)
	}
	if rec.Trailer.Ended != recorder.EndClientClosed {
		t.Errorf("trailer ended = %q", rec.Trailer.Ended)
	}
}
