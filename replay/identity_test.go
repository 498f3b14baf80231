package replay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

// otherClient is how a client other than the one that recorded differs from it.
type otherClient struct {
	name     string
	jsonrpc  bool               // send "jsonrpc":"2.0" (the recorded client did)
	id       func(n int) string // the id of the client's nth request, as JSON
	identity map[string]any     // initialize params members replacing the recorded ones
}

var otherClients = []otherClient{
	{
		name: "no jsonrpc, numeric ids",
		id:   func(n int) string { return fmt.Sprint(100 + n) },
		identity: map[string]any{
			"clientInfo":   map[string]any{"name": "other-client", "title": "Other Client", "version": "9.9.9"},
			"capabilities": map[string]any{"experimentalApi": false, "optOutNotificationMethods": []any{}},
		},
	},
	{
		name:     "jsonrpc, string ids",
		jsonrpc:  true,
		id:       func(n int) string { return fmt.Sprintf(`"req-%d"`, n) },
		identity: map[string]any{"clientInfo": map[string]any{"name": "py_sdk", "version": "0.3.1"}},
	},
}

// TestAnotherClient: a client other than the one that recorded (another clientInfo,
// no initialized notification, its own ids and jsonrpc habit, its own workspace and
// member order) completes every turn of every committed capture in params mode. The
// skipped initialized is reported, not failed.
func TestAnotherClient(t *testing.T) {
	for _, v := range codexbin.Versions {
		for _, name := range []string{"plain", "approval-accept", "approval-decline", "apply-patch", "mcp-tool", "interrupt", "steer", "resume"} {
			first := load(t, fixture(v, name), 0)
			for seg := 1; seg <= first.Segments; seg++ {
				for _, oc := range otherClients {
					t.Run(fmt.Sprintf("%s/%s/segment%d/%s", v, name, seg, oc.name), func(t *testing.T) {
						sc := load(t, fixture(v, name), seg)
						// No patience: the skip alone must release what waited for initialized.
						s := serve(t, &replay.Server{Script: sc, Patience: -1})
						turns, completed := oc.drive(t, s, sc)
						if err := s.finish(); err != nil {
							t.Fatalf("Serve: %v\n%s", err, s.log)
						}
						completed += strings.Count(strings.Join(s.rest(), ""), `"method":"turn/completed"`)
						if turns == 0 || completed != turns {
							t.Errorf("%d turn/start answered, %d turn/completed received\n%s", turns, completed, s.log)
						}
						if !strings.Contains(s.log.String(), "notification initialized") || !strings.Contains(s.log.String(), "skipped") {
							t.Errorf("the skipped initialized is not reported:\n%s", s.log)
						}
					})
				}
			}
		}
	}
}

// drive plays the recorded client's requests the other client's way and checks each
// answer. It returns how many turns it started and how many turn/completed it saw.
func (oc otherClient) drive(t *testing.T, s *served, sc *replay.Script) (turns, completed int) {
	t.Helper()
	work := t.TempDir()
	n := 0
	for _, cf := range sc.Client {
		var m map[string]any
		if err := json.Unmarshal(wire.Content(cf.Line), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "jsonrpc")
		if oc.jsonrpc {
			m["jsonrpc"] = "2.0"
		}
		var got []string
		switch cf.Msg.Kind {
		case wire.KindNotification:
			continue // this client never sends initialized
		case wire.KindResponse, wire.KindError:
			id := string(cf.Msg.ID)
			got = s.until("server request "+id, func(l string) bool {
				return gjson.Get(l, "id").Raw == id && gjson.Get(l, "method").Exists()
			})
			s.send(encode(t, m))
		case wire.KindRequest:
			n++
			id := oc.id(n)
			m["id"] = json.RawMessage(id)
			if p, ok := m["params"].(map[string]any); ok {
				if cf.Msg.Method == "initialize" {
					for k, v := range oc.identity {
						p[k] = v
					}
				}
				if p["cwd"] == "<cwd>" {
					p["cwd"] = work
				}
			}
			s.send(encode(t, m))
			got = s.response(id)
			last := got[len(got)-1]
			if !gjson.Get(last, "result").Exists() {
				t.Fatalf("%s answered %s\n%s", cf.Msg.Method, last, s.log)
			}
			if cf.Msg.Method == "turn/start" {
				turns++
			}
		}
		completed += strings.Count(strings.Join(got, ""), `"method":"turn/completed"`)
	}
	return turns, completed
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStrictKeepsNotifications: with Strict, the recorded initialized is required,
// so a client that leaves it out mismatches at its next request; params mode still
// accepts another clientInfo once initialized comes.
func TestStrictKeepsNotifications(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	s := serve(t, &replay.Server{Script: sc, Strict: true})
	s.send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"other-client","version":"2"}}}`)
	if got := s.response("1"); !gjson.Get(got[len(got)-1], "result").Exists() {
		t.Fatalf("initialize with another clientInfo: %s", got[len(got)-1])
	}
	s.send(`{"id":2,"method":"thread/start","params":{"approvalPolicy":"never","cwd":"/w","sandbox":"read-only"}}`)
	got := s.response("2")
	if !gjson.Get(got[len(got)-1], "error").Exists() {
		t.Fatalf("thread/start before initialized, strict: %s", got[len(got)-1])
	}
	err := s.finish()
	s.rest()
	if !errors.Is(err, replay.ErrNoMatch) || !errors.Is(err, replay.ErrUnused) {
		t.Errorf("Serve: %v; want ErrNoMatch and ErrUnused", err)
	}
}

// TestSkippedNotificationComesLate: a notification skipped because the client went
// past it still matches when it comes after all, and is then not reported.
func TestSkippedNotificationComesLate(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	s := serve(t, &replay.Server{Script: sc})
	s.send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"other-client","version":"2"}}}`)
	s.response("1")
	s.send(`{"id":2,"method":"thread/start","params":{"approvalPolicy":"never","cwd":"/w","sandbox":"read-only"}}`)
	s.response("2")
	s.send(`{"method":"initialized"}`)
	if err := s.finish(); !errors.Is(err, replay.ErrUnused) || errors.Is(err, replay.ErrNoMatch) {
		t.Errorf("Serve: %v; want only ErrUnused (turn/start never came)", err)
	}
	s.rest()
	if strings.Contains(s.log.String(), "skipped") {
		t.Errorf("initialized came, yet is reported skipped:\n%s", s.log)
	}
}

// TestHangup: a client that hangs up without closing its input (a SIGTERM while the
// pipe stays open) ends the session as EOF would, once it has been silent for
// HangupGrace: what it sent before is judged, the rest reported unused.
func TestHangup(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	hangup := make(chan struct{})
	s := serve(t, &replay.Server{Script: sc, Hangup: hangup})
	s.send(strings.TrimSuffix(string(sc.Client[0].Line), "\n"))
	s.response(string(sc.Client[0].Msg.ID))
	close(hangup)
	select {
	case err := <-s.done:
		if !errors.Is(err, replay.ErrUnused) || errors.Is(err, replay.ErrNoMatch) {
			t.Errorf("Serve: %v; want ErrUnused only", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Serve did not end after the hangup")
	}
	if !strings.Contains(s.log.String(), "3 expected client frame(s) never came") {
		t.Errorf("log:\n%s", s.log)
	}
}

// TestAnotherClientUnordered: the other clients complete their turns in unordered
// mode too, where the skipped initialized must release server frames of every thread.
func TestAnotherClientUnordered(t *testing.T) {
	for _, name := range []string{"plain", "approval-decline", "steer"} {
		for _, oc := range otherClients {
			t.Run(name+"/"+oc.name, func(t *testing.T) {
				sc := load(t, fixture(codexbin.Newest, name), 0)
				s := serve(t, &replay.Server{Script: sc, Unordered: true, Patience: -1})
				turns, completed := oc.drive(t, s, sc)
				if err := s.finish(); err != nil {
					t.Fatalf("Serve: %v\n%s", err, s.log)
				}
				completed += strings.Count(strings.Join(s.rest(), ""), `"method":"turn/completed"`)
				if turns == 0 || completed != turns {
					t.Errorf("%d turns, %d turn/completed\n%s", turns, completed, s.log)
				}
			})
		}
	}
}
