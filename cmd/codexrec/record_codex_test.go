package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// TestRecordRealCodex runs a session with the real codex app-server under the
// recording proxy. The server's stdout also goes through tee into a file, so the test
// knows exactly which bytes the server wrote and can compare them with what the
// client received and what the recording holds.
func TestRecordRealCodex(t *testing.T) {
	for _, version := range codexbin.Versions {
		t.Run(version, func(t *testing.T) {
			bin := codextest.Binary(t, version)
			env, _ := codextest.Env(t)
			dir := t.TempDir()
			out := filepath.Join(dir, "session.jsonl")
			teeFile := filepath.Join(dir, "server-stdout")
			args := append([]string{"record", "--no-sanitize", "-o", out, "--", "bash", "-c", `"$@" | tee "$TEE_FILE"`, "bash", bin},
				codextest.FakeProviderArgs("http://127.0.0.1:9/v1")...)
			sess := startSession(t, dir, append(env, "TEE_FILE="+teeFile), args...)
			sent := []string{
				`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"codexrec-test","title":"codexrec test","version":"1"}}}`,
				`{"method":"initialized"}`,
				`{"id":"two","method":"thread/start","params":{}}`,
			}
			sess.send(sent[0])
			sess.waitResponse("1")
			sess.send(sent[1:]...)
			sess.waitFor("thread/started", func(l string) bool { return gjson.Get(l, "method").Str == "thread/started" })
			if code := sess.finish(); code != 0 {
				t.Fatalf("record: exit %d; stderr: %s", code, sess.stderr)
			}
			received := sess.received.String()

			serverWrote, err := os.ReadFile(teeFile)
			if err != nil {
				t.Fatal(err)
			}
			if received != string(serverWrote) {
				t.Fatalf("client received %d bytes, server wrote %d: not identical", len(received), len(serverWrote))
			}
			rec := readRecording(t, out)
			if got := string(frameBytes(rec, wire.ServerToClient)); got != string(serverWrote) {
				t.Fatalf("recording's s2c frames (%d bytes) differ from what the server wrote (%d)", len(got), len(serverWrote))
			}
			if got := string(frameBytes(rec, wire.ClientToServer)); got != strings.Join(sent, "\n")+"\n" {
				t.Fatalf("recording's c2s frames = %q", got)
			}
			if rec.Header.CodexVersion != version {
				t.Errorf("header codexVersion %q, want %q", rec.Header.CodexVersion, version)
			}
			// Frames are in the order the proxy read them: each response after its request.
			seen := map[string]int64{}
			for _, e := range rec.Frames() {
				if e.Dir == wire.ClientToServer && e.Msg.Kind == wire.KindRequest {
					seen[string(e.Msg.ID)] = e.Seq
				}
				if e.Dir == wire.ServerToClient && e.Msg.Kind == wire.KindResponse {
					if req, ok := seen[string(e.Msg.ID)]; !ok || req > e.Seq || e.Msg.Unpaired {
						t.Errorf("response %s (seq %d) not after its request", e.Msg.ID, e.Seq)
					}
				}
			}
			methods := map[string]bool{}
			for _, e := range rec.Frames(wire.ServerToClient) {
				methods[e.Msg.Kind.String()+" "+e.Msg.Method] = true
			}
			for _, want := range []string{"response initialize", "response thread/start", "notification thread/started"} {
				if !methods[want] {
					t.Errorf("recording lacks %s; has %v", want, methods)
				}
			}
			if tr := rec.Trailer; tr.Ended != recorder.EndClientEOF || tr.ExitCode != 0 {
				t.Errorf("trailer %+v", tr)
			}
		})
	}
}
