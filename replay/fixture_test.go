package replay_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

// fixture is the path of a committed capture from the real binary.
func fixture(version, scenario string) string {
	return filepath.Join("..", "fixtures", "hermetic", version, scenario+".jsonl")
}

// driveRecorded plays the recorded client: it sends each recorded client line as it
// was, a request after the previous request's answer, an answer to a server request
// once that request has arrived. It returns every line received meanwhile.
func driveRecorded(s *served, sc *replay.Script) []string {
	s.t.Helper()
	var got []string
	for _, cf := range sc.Client {
		switch cf.Msg.Kind {
		case wire.KindResponse, wire.KindError:
			id := string(cf.Msg.ID)
			got = append(got, s.until("server request "+id, func(l string) bool {
				return gjson.Get(l, "id").Raw == id && gjson.Get(l, "method").Exists()
			})...)
		}
		s.send(strings.TrimSuffix(string(cf.Line), "\n"))
		if cf.Msg.Kind == wire.KindRequest {
			got = append(got, s.response(string(cf.Msg.ID))...)
		}
	}
	return got
}

// playRecorded drives the recorded client against srv, ends the session and returns
// every line the client received and Serve's error.
func playRecorded(t *testing.T, srv *replay.Server) ([]string, error) {
	t.Helper()
	s := serve(t, srv)
	got := driveRecorded(s, srv.Script)
	err := s.finish()
	return append(got, s.rest()...), err
}

// TestRecordedClient: the recorded client, played back, gets the recorded server
// frames byte for byte (placeholders kept), in order, for every committed scenario
// of both versions.
func TestRecordedClient(t *testing.T) {
	for _, v := range codexbin.Versions {
		for _, name := range []string{"plain", "approval-accept", "approval-decline", "apply-patch", "mcp-tool", "interrupt", "steer", "resume"} {
			t.Run(v+"/"+name, func(t *testing.T) {
				sc := load(t, fixture(v, name), 0)
				got, err := playRecorded(t, &replay.Server{Script: sc, Mode: replay.ModeStrict, KeepPlaceholders: true})
				if err != nil {
					t.Fatal(err)
				}
				want := s2c(sc)
				if strings.Join(got, "") != strings.Join(want, "") {
					t.Fatalf("got %d lines, want the recording's %d:\n%s", len(got), len(want), lineDiff(want, got))
				}
			})
		}
	}
}

// lineDiff shows the first line where two sequences differ.
func lineDiff(want, got []string) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			return "first difference at line " + itoa(i+1) + ":\nwant " + shortLine(w) + "\ngot  " + shortLine(g)
		}
	}
	return "(no difference)"
}

func shortLine(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return strings.TrimSuffix(s, "\n")
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// pipeRWC joins the two pipe ends a jsonrpc2 stream needs.
type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

// TestForeignClient drives the replay with a client built on
// github.com/sourcegraph/jsonrpc2, not the one that made the recordings: it adds
// "jsonrpc":"2.0", numbers its ids its own way (as strings, in one case), uses a
// workspace of its own, and answers the approval request through its handler. A
// full turn completes.
func TestForeignClient(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		opts     []jsonrpc2.CallOption
	}{
		{"plain", nil},
		{"approval-accept", []jsonrpc2.CallOption{jsonrpc2.StringID()}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			sc := load(t, fixture(codexbin.Newest, tc.scenario), 0)
			recorded := map[string]json.RawMessage{}
			for _, cf := range sc.Client {
				if cf.Msg.Kind == wire.KindRequest {
					recorded[cf.Msg.Method] = json.RawMessage(gjson.GetBytes(cf.Line, "params").Raw)
				}
			}
			srv := &replay.Server{Script: sc, Log: &syncBuffer{}}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			go func() { err := srv.Serve(ctx, inR, outW); outW.Close(); done <- err }()

			completed := make(chan json.RawMessage, 1)
			approvals := 0
			h := jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
				if req.Notif {
					if req.Method == "turn/completed" && req.Params != nil {
						completed <- *req.Params
					}
					return nil, nil
				}
				if req.Method == "item/commandExecution/requestApproval" {
					approvals++
					return map[string]string{"decision": "accept"}, nil
				}
				return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: req.Method}
			})
			conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewPlainObjectStream(pipeRWC{outR, inW}), h)

			var init struct{ UserAgent string }
			if err := conn.Call(ctx, "initialize", recorded["initialize"], &init, tc.opts...); err != nil {
				t.Fatalf("initialize: %v", err)
			}
			if err := conn.Notify(ctx, "initialized", nil); err != nil {
				t.Fatal(err)
			}
			var params map[string]any
			json.Unmarshal(recorded["thread/start"], &params)
			work := t.TempDir()
			params["cwd"] = work
			var thread struct {
				Thread struct {
					ID  string
					Cwd string
				}
			}
			if err := conn.Call(ctx, "thread/start", params, &thread, tc.opts...); err != nil {
				t.Fatalf("thread/start: %v", err)
			}
			if thread.Thread.Cwd != work {
				t.Errorf("thread/start answered cwd %q, want the live workspace %q", thread.Thread.Cwd, work)
			}
			params = nil
			json.Unmarshal(recorded["turn/start"], &params)
			params["threadId"] = thread.Thread.ID
			var turn struct{ Turn struct{ ID string } }
			if err := conn.Call(ctx, "turn/start", params, &turn, tc.opts...); err != nil {
				t.Fatalf("turn/start: %v\n%s", err, srv.Log)
			}
			select {
			case p := <-completed:
				if id := gjson.GetBytes(p, "turn.id").Str; id != turn.Turn.ID || gjson.GetBytes(p, "turn.status").Str != "completed" {
					t.Errorf("turn/completed %s, want turn %s completed", p, turn.Turn.ID)
				}
			case <-ctx.Done():
				t.Fatalf("no turn/completed: %v\n%s", ctx.Err(), srv.Log)
			}
			if want := strings.Count(tc.scenario, "approval"); approvals != want {
				t.Errorf("%d approval requests, want %d", approvals, want)
			}
			conn.Close()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Serve: %v\n%s", err, srv.Log)
				}
			case <-time.After(waitTimeout):
				t.Fatal("Serve did not end")
			}
		})
	}
}

// TestEchoPlaceholders: in a sanitized capture the recorded client's workspace is
// <cwd>; a live client in its own workspace matches it (params mode) and sees its
// own path wherever the server quoted the workspace, inside longer paths too.
func TestEchoPlaceholders(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "apply-patch"), 0)
	work := t.TempDir()
	s := serve(t, &replay.Server{Script: sc})
	var got []string
	for _, cf := range sc.Client {
		line := strings.TrimSuffix(string(cf.Line), "\n")
		if cf.Msg.Method == "thread/start" {
			line = strings.Replace(line, `"<cwd>"`, quote(work), 1)
		}
		s.send(line)
		if cf.Msg.Kind == wire.KindRequest {
			got = append(got, s.response(string(cf.Msg.ID))...)
		}
	}
	if err := s.finish(); err != nil {
		t.Fatalf("Serve: %v\n%s", err, s.log)
	}
	all := strings.Join(append(got, s.rest()...), "")
	if strings.Contains(all, "<cwd>") {
		t.Error("the placeholder <cwd> still reaches the client")
	}
	if n := strings.Count(all, `"`+work+`/hello.txt"`); n != 2 {
		t.Errorf("the patched file's live path appears %d times, want 2 (as <cwd>/hello.txt in the recording)", n)
	}
}

// TestServerRequestAnswers: the approval request goes out with its recorded id, and
// the client's answer is matched by that id: another id (even "0" for 0), another
// decision or no answer at all is a mismatch or an unused frame.
func TestServerRequestAnswers(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "approval-accept"), 0)
	for _, tc := range []struct {
		name   string
		answer func(recorded string) string // "" sends nothing
		want   []error
		log    string
	}{
		{"recorded answer", func(r string) string { return r }, nil, ""},
		{"answer in another shape", func(string) string { return `{"jsonrpc":"2.0","result":{"decision":"accept"},"id":0}` }, nil, ""},
		{"id as a string", func(r string) string { return strings.Replace(r, `"id":0`, `"id":"0"`, 1) },
			[]error{replay.ErrNoMatch, replay.ErrUnused}, `response answers id "0", which the replay never sent as a request`},
		{"declined", func(r string) string { return strings.Replace(r, `"accept"`, `"decline"`, 1) },
			[]error{replay.ErrNoMatch, replay.ErrUnused}, `/result/decision: "decline", recorded "accept"`},
		{"no answer", func(string) string { return "" }, []error{replay.ErrUnused}, "response id 0 (item/commandExecution/requestApproval)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, &replay.Server{Script: sc})
			for _, cf := range sc.Client {
				line := strings.TrimSuffix(string(cf.Line), "\n")
				if cf.Msg.Kind == wire.KindResponse {
					req := s.until("the approval request", func(l string) bool {
						return gjson.Get(l, "method").Str == "item/commandExecution/requestApproval"
					})
					if id := gjson.Get(req[len(req)-1], "id").Raw; id != "0" {
						t.Fatalf("approval request sent with id %s, recorded 0", id)
					}
					if line = tc.answer(line); line == "" {
						break
					}
				}
				s.send(line)
				if cf.Msg.Kind == wire.KindRequest {
					s.response(string(cf.Msg.ID))
				}
			}
			err := s.finish()
			s.rest()
			if len(tc.want) == 0 && err != nil {
				t.Fatalf("Serve: %v\n%s", err, s.log)
			}
			for _, w := range tc.want {
				if !errors.Is(err, w) {
					t.Errorf("Serve: %v; want %v", err, w)
				}
			}
			if !strings.Contains(s.log.String(), tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, s.log)
			}
		})
	}
}
