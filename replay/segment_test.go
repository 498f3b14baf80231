package replay_test

import (
	"errors"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/replay"
)

// TestSegments: a recording of two server lifetimes (the client stops the server,
// starts a new one and resumes its thread) serves either lifetime on its own, as a
// client restarting its server would meet them.
func TestSegments(t *testing.T) {
	var thread string
	first := func(c *conn, work string) {
		c.send(initialize(`1`))
		c.response(`1`)
		c.send(`{"method":"initialized"}`, threadStart(`2`, work, "never"))
		l := c.response(`2`)
		thread = gjson.Get(l[len(l)-1], "result.thread.id").Str
		c.send(`{"id":3,"method":"thread/name/set","params":{"threadId":"` + thread + `","name":"before restart"}}`)
		c.response(`3`)
	}
	second := func(c *conn, work string) {
		c.send(initialize(`1`))
		c.response(`1`)
		c.send(`{"method":"initialized"}`, `{"id":2,"method":"thread/resume","params":{"threadId":"`+thread+`"}}`)
		c.response(`2`)
	}
	path := recordReal(t, first, second)

	sc1, sc2 := load(t, path, 0), load(t, path, 2)
	if sc1.Segment != 1 || sc2.Segment != 2 || sc1.Segments != 2 || sc2.Segments != 2 {
		t.Fatalf("segments: got %d/%d and %d/%d", sc1.Segment, sc1.Segments, sc2.Segment, sc2.Segments)
	}
	if len(sc1.Client) != 4 || len(sc2.Client) != 3 {
		t.Fatalf("client frames per segment: %d and %d, want 4 and 3", len(sc1.Client), len(sc2.Client))
	}
	if _, err := replay.LoadFile(path, 3); !errors.Is(err, replay.ErrNoSegment) {
		t.Errorf("segment 3: %v, want ErrNoSegment", err)
	}

	s := serve(t, &replay.Server{Script: sc1})
	s.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`2`, recordedCwd(sc1), "never"))
	s.response(`2`)
	s.send(`{"id":3,"method":"thread/name/set","params":{"threadId":"` + thread + `","name":"before restart"}}`)
	s.response(`3`)
	if err := s.finish(); err != nil {
		t.Fatalf("segment 1: %v\n%s", err, s.log)
	}

	s = serve(t, &replay.Server{Script: sc2})
	s.send(initialize(`1`), `{"method":"initialized"}`, `{"id":2,"method":"thread/resume","params":{"threadId":"`+thread+`"}}`)
	l := s.response(`2`)
	if got := gjson.Get(l[len(l)-1], "result.thread.id").Str; got != thread {
		t.Errorf("segment 2: thread/resume answered %.300s, want thread %s", l[len(l)-1], thread)
	}
	if err := s.finish(); err != nil {
		t.Fatalf("segment 2: %v\n%s", err, s.log)
	}

	// Segment 2 is not what a fresh client's first lifetime sends.
	s = serve(t, &replay.Server{Script: sc2})
	s.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`2`, recordedCwd(sc1), "never"))
	s.response(`2`)
	if err := s.finish(); !errors.Is(err, replay.ErrNoMatch) {
		t.Errorf("segment 2 served a thread/start: %v", err)
	}
}
