package replay_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/wire"
)

// waitsForThreadStarted plays the recorded client of sc, except that it reads up to
// thread/started before it sends turn/start, as a client that builds its thread view
// from notifications does. It returns the lines received.
func waitsForThreadStarted(s *served, sc *replay.Script) []string {
	s.t.Helper()
	var got []string
	for _, cf := range sc.Client {
		if cf.Msg.Method == "turn/start" {
			got = append(got, s.notification("thread/started")...)
		}
		s.send(strings.TrimSuffix(string(cf.Line), "\n"))
		if cf.Msg.Kind == wire.KindRequest {
			got = append(got, s.response(string(cf.Msg.ID))...)
		}
	}
	return got
}

// TestPatience: in the plain captures the fast recorded client sent turn/start just
// before the server's thread/started reached the proxy, so the script has
// thread/started wait for turn/start. A client that waits for thread/started first
// deadlocks without patience; with it, thread/started comes after Patience of
// silence, the log says why, and the session completes with nothing unmatched.
func TestPatience(t *testing.T) {
	for _, version := range codexbin.Versions {
		sc := load(t, fixture(version, "plain"), 0)
		turn, started := -1, -1
		for _, f := range sc.Client {
			if f.Msg.Method == "turn/start" {
				turn = int(f.Seq)
			}
		}
		for _, f := range sc.Server {
			if f.Msg.Method == "thread/started" {
				started = int(f.Seq)
			}
		}
		if turn < 0 || started < turn {
			t.Fatalf("%s: thread/started (seq %d) is not recorded after turn/start (seq %d): the test's premise is gone", version, started, turn)
		}
		t.Run(version+"/never", func(t *testing.T) {
			s := serve(t, &replay.Server{Script: sc, Patience: -1})
			for _, cf := range sc.Client {
				if cf.Msg.Method == "turn/start" {
					break
				}
				s.send(strings.TrimSuffix(string(cf.Line), "\n"))
				if cf.Msg.Kind == wire.KindRequest {
					s.response(string(cf.Msg.ID))
				}
			}
			deadline := time.After(4 * replay.DefaultPatience)
			for {
				select {
				case l := <-s.lines:
					if gjson.Get(l, "method").Str == "thread/started" {
						t.Fatalf("thread/started came before turn/start without patience")
					}
					continue
				case <-deadline:
				}
				break
			}
		})
		for _, unordered := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/released/unordered=%v", version, unordered), func(t *testing.T) {
				released(t, &replay.Server{Script: sc, Unordered: unordered, Patience: 50 * time.Millisecond})
			})
		}
	}
}

// released drives srv with a client that waits for thread/started before turn/start
// and checks that patience let the turn complete, and said so.
func released(t *testing.T, srv *replay.Server) {
	s := serve(t, srv)
	start := time.Now()
	got := waitsForThreadStarted(s, srv.Script)
	if err := s.finish(); err != nil {
		t.Fatalf("Serve: %v\nlog:\n%s", err, s.log.String())
	}
	got = append(got, s.rest()...)
	if time.Since(start) < srv.Patience {
		t.Errorf("finished in %v, before any patience ran out", time.Since(start))
	}
	if log := s.log.String(); !strings.Contains(log, "notification thread/started") || !strings.Contains(log, "request turn/start") || !strings.Contains(log, "patience") {
		t.Errorf("log does not tell the release:\n%s", log)
	}
	var completed bool
	for _, l := range got {
		completed = completed || gjson.Get(l, "method").Str == "turn/completed"
	}
	if !completed {
		t.Errorf("no turn/completed among %d lines", len(got))
	}
}
