package replay_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/replay"
)

// twoThreads is a lifetime with two threads, each then renamed: the requests of
// different threads a client may well send in another order.
func twoThreads(ids map[string]string) lifetime {
	return func(c *conn, work string) {
		c.send(initialize(`1`))
		c.response(`1`)
		c.send(`{"method":"initialized"}`)
		c.send(threadStart(`2`, work, "never"))
		a := c.response(`2`)
		c.send(threadStart(`3`, work, "on-request"))
		b := c.response(`3`)
		ids["a"] = gjson.Get(a[len(a)-1], "result.thread.id").Str
		ids["b"] = gjson.Get(b[len(b)-1], "result.thread.id").Str
		c.send(`{"id":4,"method":"thread/name/set","params":{"threadId":"` + ids["a"] + `","name":"alpha"}}`)
		c.response(`4`)
		c.send(`{"id":5,"method":"thread/name/set","params":{"threadId":"` + ids["b"] + `","name":"beta"}}`)
		c.response(`5`)
	}
}

// TestUnordered: with Unordered, and by default, requests of different threads may
// come in another order than recorded and each gets its own thread's answer; with
// Strict they may not.
func TestUnordered(t *testing.T) {
	ids := map[string]string{}
	path := recordReal(t, twoThreads(ids))
	sc := load(t, path, 0)
	cwd := recordedCwd(sc)
	if ids["a"] == "" || ids["b"] == "" || ids["a"] == ids["b"] {
		t.Fatalf("recording: thread ids %v", ids)
	}
	// Thread b first, then a; renames in the opposite order too. The client waits for
	// each answer, so a replay that held b's answers back until a's requests came
	// would stall here.
	run := func(s *served) (threadOf map[string]string) {
		threadOf = map[string]string{}
		s.send(initialize(`1`), `{"method":"initialized"}`)
		s.response(`1`)
		s.send(threadStart(`10`, cwd, "on-request"))
		l := s.response(`10`)
		threadOf["10"] = gjson.Get(l[len(l)-1], "result.thread.id").Str
		s.send(threadStart(`11`, cwd, "never"))
		l = s.response(`11`)
		threadOf["11"] = gjson.Get(l[len(l)-1], "result.thread.id").Str
		s.send(`{"id":12,"method":"thread/name/set","params":{"threadId":"` + ids["b"] + `","name":"beta"}}`)
		s.response(`12`)
		s.send(`{"id":13,"method":"thread/name/set","params":{"threadId":"` + ids["a"] + `","name":"alpha"}}`)
		l = s.response(`13`)
		if e := gjson.Get(l[len(l)-1], "error"); e.Exists() {
			threadOf["13"] = "error: " + e.Raw
		}
		return threadOf
	}

	// Unordered, and by default too: a request may pass the requests of other
	// threads (skip.go), its answer going as soon as it came.
	for _, unordered := range []bool{true, false} {
		s := serve(t, &replay.Server{Script: sc, Unordered: unordered})
		got := run(s)
		if err := s.finish(); err != nil {
			t.Fatalf("unordered %v: Serve: %v\n%s", unordered, err, s.log)
		}
		s.rest()
		if got["10"] != ids["b"] || got["11"] != ids["a"] || got["13"] != "" {
			t.Errorf("unordered %v: answers %v, want thread/start 10 -> %s, 11 -> %s, no errors", unordered, got, ids["b"], ids["a"])
		}
	}

	// Strict keeps the recorded order.
	s := serve(t, &replay.Server{Script: sc, Strict: true})
	s.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`10`, cwd, "on-request"))
	l := s.response(`10`)
	if err := s.finish(); !errors.Is(err, replay.ErrNoMatch) {
		t.Errorf("in order: Serve: %v, want ErrNoMatch", err)
	}
	if !strings.Contains(l[len(l)-1], `"code":-32600`) {
		t.Errorf("in order: answer %s", l[len(l)-1])
	}
	if t.Failed() {
		b, _ := os.ReadFile(path)
		t.Logf("recording:\n%s", b)
	}
}
