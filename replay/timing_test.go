package replay_test

import (
	"testing"
	"time"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/replay"
)

// TestSpeed: with Speed set, a turn's frames keep the recorded gaps, scaled. Only a
// lower bound is checked (a loaded machine may be slower, never faster); how fast
// speed 0 is belongs to the benchmarks.
func TestSpeed(t *testing.T) {
	sc := load(t, fixture(codexbin.Newest, "plain"), 0)
	var start, end time.Duration
	for _, cf := range sc.Client {
		if cf.Msg.Method == "turn/start" {
			start = cf.Time
		}
	}
	for _, sf := range sc.Server {
		if sf.Msg.Method == "turn/completed" {
			end = sf.Time
		}
	}
	recorded := end - start
	if recorded < 50*time.Millisecond {
		t.Fatalf("the recorded turn took %v: too short to measure", recorded)
	}
	const speed = 2
	s := serve(t, &replay.Server{Script: sc, Speed: speed})
	_, sent := s.playClient(sc)
	s.notification("turn/completed")
	took := time.Since(sent)
	if min := recorded / speed * 9 / 10; took < min {
		t.Errorf("the turn took %v at speed %d; recorded %v, so at least %v", took, speed, recorded, min)
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
}
