package replay_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func initialize(id string) string {
	return `{"id":` + id + `,"method":"initialize","params":{"clientInfo":{"name":"replay-test","title":"replay test","version":"1"}}}`
}

func threadStart(id, cwd, policy string) string {
	return `{"id":` + id + `,"method":"thread/start","params":{"cwd":` + quote(cwd) + `,"approvalPolicy":"` + policy + `"}}`
}

// handshake is a lifetime: initialize (id initID), initialized, thread/start (id
// startID) in the workspace with approvalPolicy "never".
func handshake(initID, startID string) lifetime {
	return func(c *conn, work string) {
		c.send(initialize(initID))
		c.response(initID)
		c.send(`{"method":"initialized"}`)
		c.send(threadStart(startID, work, "never"))
		c.response(startID)
		c.notification("thread/started")
	}
}

// recordedCwd is the workspace a recording's thread/start asked for.
func recordedCwd(sc *replay.Script) string {
	for _, cf := range sc.Client {
		if cf.Msg.Method == "thread/start" {
			return gjson.GetBytes(cf.Line, "params.cwd").Str
		}
	}
	return ""
}

// s2c returns the recorded server-to-client lines of a script.
func s2c(sc *replay.Script) []string {
	var out []string
	for _, sf := range sc.Server {
		if sf.Dir == wire.ServerToClient {
			out = append(out, string(sf.Line))
		}
	}
	return out
}

// TestLiveIDs: responses carry the live client's id with its JSON type, spliced into
// the recorded bytes; everything else is byte for byte the recording.
func TestLiveIDs(t *testing.T) {
	path := recordReal(t, handshake(`1`, `"t-1"`))
	sc := load(t, path, 0)
	cwd := recordedCwd(sc)
	recorded := s2c(sc)
	for _, tc := range []struct {
		name            string
		initID, startID string
	}{
		{"same ids", `1`, `"t-1"`},
		{"int becomes string", `"1"`, `1`},
		{"zero and spaces", `0`, `"a b"`},
		{"large and escaped", `9007199254740993`, `"q\"x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, &replay.Server{Script: sc})
			s.send(initialize(tc.initID), `{"method":"initialized"}`, threadStart(tc.startID, cwd, "never"))
			var got []string
			got = append(got, s.response(tc.initID)...)
			got = append(got, s.notification("thread/started")...)
			if err := s.finish(); err != nil {
				t.Fatalf("Serve: %v\n%s", err, s.log)
			}
			got = append(got, s.rest()...)
			if len(got) != len(recorded) {
				t.Fatalf("got %d lines, the recording has %d", len(got), len(recorded))
			}
			for i := range got {
				want := recorded[i]
				switch {
				case strings.HasPrefix(want, `{"id":1,`):
					want = `{"id":` + tc.initID + `,` + strings.TrimPrefix(want, `{"id":1,`)
				case strings.HasPrefix(want, `{"id":"t-1",`):
					want = `{"id":` + tc.startID + `,` + strings.TrimPrefix(want, `{"id":"t-1",`)
				}
				if got[i] != want {
					t.Errorf("line %d:\ngot  %.300s\nwant %.300s", i+1, got[i], want)
				}
			}
		})
	}
}

// TestMatchModes: what each mode accepts for the recorded thread/start.
func TestMatchModes(t *testing.T) {
	path := recordReal(t, handshake(`1`, `2`))
	sc := load(t, path, 0)
	cwd := recordedCwd(sc)
	other := t.TempDir()
	for _, tc := range []struct {
		name  string
		mode  replay.Mode
		start string
		match bool
	}{
		{"strict same", replay.ModeStrict, threadStart(`2`, cwd, "never"), true},
		{"strict reordered members and spaces", replay.ModeStrict,
			`{"method": "thread/start", "params": {"approvalPolicy": "never", "cwd": ` + quote(cwd) + `}, "id": 2, "jsonrpc": "2.0"}`, true},
		{"strict other cwd", replay.ModeStrict, threadStart(`2`, other, "never"), false},
		{"params other cwd", replay.ModeParams, threadStart(`2`, other, "never"), true},
		{"params other policy", replay.ModeParams, threadStart(`2`, cwd, "on-request"), false},
		{"params missing member", replay.ModeParams, `{"id":2,"method":"thread/start","params":{"cwd":` + quote(cwd) + `}}`, false},
		{"method other policy", replay.ModeMethod, threadStart(`2`, other, "on-request"), true},
		{"method other method", replay.ModeMethod, `{"id":2,"method":"thread/list","params":{}}`, false},
		{"method notification instead of request", replay.ModeMethod, `{"method":"thread/start","params":{}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := serve(t, &replay.Server{Script: sc, Mode: tc.mode})
			s.send(initialize(`1`), `{"method":"initialized"}`, tc.start)
			s.response(`1`)
			var last string
			if gjson.Get(tc.start, "id").Exists() {
				lines := s.response(`2`)
				last = lines[len(lines)-1]
			}
			err := s.finish()
			s.rest()
			if tc.match {
				if err != nil || gjson.Get(last, "error").Exists() {
					t.Fatalf("want a match; Serve: %v; answer %.200s\n%s", err, last, s.log)
				}
				if gjson.Get(last, "result.thread.id").Str == "" {
					t.Errorf("answer is not the recorded thread/start response: %.200s", last)
				}
				return
			}
			if !errors.Is(err, replay.ErrNoMatch) {
				t.Fatalf("want ErrNoMatch, got %v", err)
			}
			if last != "" && gjson.Get(last, "error.code").Int() != -32600 {
				t.Errorf("want a -32600 error answer, got %.200s", last)
			}
		})
	}
}

// TestEcho: values the live client chose differently (a workspace path accepted by
// params matching, a client name accepted by method matching) are echoed where the
// recording echoed the recorded client's.
func TestEcho(t *testing.T) {
	path := recordReal(t, handshake(`1`, `2`))
	sc := load(t, path, 0)
	cwd := recordedCwd(sc)
	var inRecording int
	for _, l := range s2c(sc) {
		inRecording += strings.Count(l, cwd)
	}
	if inRecording == 0 {
		t.Fatalf("the recorded server frames never mention the workspace %s", cwd)
	}

	t.Run("params mode, other workspace", func(t *testing.T) {
		other := t.TempDir()
		s := serve(t, &replay.Server{Script: sc})
		s.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`2`, other, "never"))
		got := s.response(`1`)
		if err := s.finish(); err != nil {
			t.Fatalf("Serve: %v\n%s", err, s.log)
		}
		got = append(got, s.rest()...)
		all := strings.Join(got, "")
		if n := strings.Count(all, other); n != inRecording {
			t.Errorf("live workspace appears %d times, the recorded one %d times in the recording", n, inRecording)
		}
		if strings.Contains(all, cwd) {
			t.Errorf("the recorded workspace %s still reaches the client", cwd)
		}
	})

	t.Run("method mode, other client name", func(t *testing.T) {
		s := serve(t, &replay.Server{Script: sc, Mode: replay.ModeMethod})
		s.send(strings.Replace(initialize(`1`), `"name":"replay-test"`, `"name":"acme-ide"`, 1))
		first := s.response(`1`)
		ua := gjson.Get(first[len(first)-1], "result.userAgent").Str
		if !strings.HasPrefix(ua, "acme-ide/") {
			t.Errorf("userAgent %q does not echo the live client name", ua)
		}
		s.send(`{"method":"initialized"}`, threadStart(`2`, cwd, "never"))
		s.response(`2`)
		if err := s.finish(); err != nil {
			t.Fatalf("Serve: %v\n%s", err, s.log)
		}
	})
}

// TestMismatch: a client message that matches nothing gets a diagnostic naming what
// was expected, what came and how they differ, and an error answer like the real
// server's; Serve reports ErrNoMatch (and, since the expected frame never came,
// ErrUnused).
func TestMismatch(t *testing.T) {
	path := recordReal(t, handshake(`1`, `2`))
	sc := load(t, path, 0)
	cwd := recordedCwd(sc)

	var hooked []*replay.Mismatch
	s := serve(t, &replay.Server{Script: sc, Mode: replay.ModeStrict, OnMismatch: func(m *replay.Mismatch) { hooked = append(hooked, m) }})
	s.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`"x"`, cwd, "on-request"))
	lines := s.response(`"x"`)
	answer := lines[len(lines)-1]
	err := s.finish()
	s.rest()
	if got := gjson.Get(answer, "error.code").Int(); got != -32600 {
		t.Errorf("error code %d, want -32600: %s", got, answer)
	}
	if msg := gjson.Get(answer, "error.message").Str; !strings.HasPrefix(msg, "replay: ") {
		t.Errorf("error message %q does not start with \"replay: \"", msg)
	}
	if !strings.HasPrefix(answer, `{"error":{"code":-32600,"message":"replay: `) || !strings.HasSuffix(answer, `},"id":"x"}`+"\n") {
		t.Errorf("error answer is not shaped like the app-server's: %s", answer)
	}
	if !errors.Is(err, replay.ErrNoMatch) || !errors.Is(err, replay.ErrUnused) {
		t.Errorf("Serve: %v; want ErrNoMatch and ErrUnused", err)
	}
	log := s.log.String()
	for _, want := range []string{
		"client line 3 matched nothing",
		"request thread/start\n  live:", // after "waiting for: seq N", N as the live recording has it
		`live:        {"id":"x","method":"thread/start"`,
		`recorded:    {"id":2,"method":"thread/start"`,
		`/params/approvalPolicy: "on-request", recorded "never"`,
		"accepted by: Mode: ModeMethod",
		"1 expected client frame(s) never came",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("diagnostic lacks %q:\n%s", want, log)
		}
	}
	if len(hooked) != 1 || hooked[0].Line != 3 || hooked[0].Nearest == nil || hooked[0].Nearest.Msg.Method != "thread/start" {
		t.Errorf("OnMismatch got %+v", hooked)
	}
}

// TestFailFast: Serve returns at the first mismatch without waiting for the client.
func TestFailFast(t *testing.T) {
	sc := load(t, recordReal(t, handshake(`1`, `2`)), 0)
	s := serve(t, &replay.Server{Script: sc, FailFast: true})
	s.send(`{"id":1,"method":"thread/list","params":{}}`)
	s.response(`1`)
	select {
	case err := <-s.done:
		if !errors.Is(err, replay.ErrNoMatch) || errors.Is(err, replay.ErrUnused) {
			t.Errorf("Serve: %v; want ErrNoMatch alone", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Serve did not return at the first mismatch")
	}
}

// TestUnused: at the client's EOF the expected frames that never came are listed;
// they are an error unless AllowUnused.
func TestUnused(t *testing.T) {
	sc := load(t, recordReal(t, handshake(`1`, `2`)), 0)
	for _, allow := range []bool{false, true} {
		s := serve(t, &replay.Server{Script: sc, AllowUnused: allow})
		s.send(initialize(`1`))
		s.response(`1`)
		err := s.finish()
		if allow != (err == nil) || !allow && !errors.Is(err, replay.ErrUnused) {
			t.Errorf("AllowUnused %v: Serve: %v", allow, err)
		}
		log := s.log.String()
		for _, want := range []string{"2 expected client frame(s) never came", "notification initialized", "request thread/start"} {
			if !strings.Contains(log, want) {
				t.Errorf("AllowUnused %v: log lacks %q:\n%s", allow, want, log)
			}
		}
	}
}
