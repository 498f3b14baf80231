package replay_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/replay"
)

// modelListScript is a recording of the real app-server (0.171.0) asked model/list and
// config/read once each.
func modelListScript(t *testing.T) *replay.Script {
	return load(t, filepath.Join("..", "fixtures", "examples", "model-list.jsonl"), 0)
}

// TestRepeats: a client calls model/list three times against a recording that has it
// once; the second and third are answered as recorded, with their own ids, and
// reported. With NoRepeats the repeats are mismatches that name what would accept
// them; a repeated method not known to be idempotent is refused unless added.
func TestRepeats(t *testing.T) {
	const (
		init0  = `{"id":0,"method":"initialize","params":{"clientInfo":{"name":"docs","version":"1"}}}`
		inited = `{"method":"initialized"}`
		cfg    = `{"id":2,"method":"config/read","params":{}}`
	)
	list := func(id string) string { return `{"id":` + id + `,"method":"model/list","params":{}}` }
	var recorded string
	for _, tc := range []struct {
		name    string
		srv     replay.Server
		lines   []string
		ok      bool
		log     []string
		repeats int
	}{
		{"three model/list", replay.Server{}, []string{init0, inited, list("1"), list("7"), cfg, list(`"x"`)}, true,
			[]string{"client line 4: request model/list repeated: answered as recorded (seq 3)", "client line 6: request model/list repeated"}, 2},
		{"no repeats", replay.Server{NoRepeats: true}, []string{init0, inited, list("1"), list("7"), cfg}, false,
			[]string{"accepted by: NoRepeats: false"}, 0},
		{"not idempotent", replay.Server{}, []string{init0, inited, list("1"), cfg, `{"id":9,"method":"config/read","params":{"x":1}}`}, false,
			[]string{"client line 5 matched nothing"}, 0},
		{"added to the idempotent methods", replay.Server{Idempotent: []string{"initialize"}}, []string{init0, init0, inited, list("1"), cfg}, true,
			[]string{"client line 2: request initialize repeated"}, 1},
		{"suggests adding it", replay.Server{}, []string{init0, init0, inited, list("1"), cfg}, false,
			[]string{"accepted by: Idempotent: initialize"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.srv
			srv.Script = modelListScript(t)
			var reps []replay.Repeat
			srv.OnRepeat = func(r replay.Repeat) { reps = append(reps, r) }
			s := serve(t, &srv)
			answers := map[string]string{}
			for _, l := range tc.lines {
				s.send(l)
				id := gjson.Get(l, "id").Raw
				if id == "" {
					continue
				}
				for _, got := range s.response(id) {
					if gjson.Get(got, "id").Raw == id {
						answers[id] = got
					}
				}
			}
			err := s.finish()
			s.rest()
			if (err == nil) != tc.ok {
				t.Fatalf("Serve: %v\n%s", err, s.log.String())
			}
			for _, want := range tc.log {
				if !strings.Contains(s.log.String(), want) {
					t.Errorf("log lacks %q:\n%s", want, s.log.String())
				}
			}
			if len(reps) != tc.repeats {
				t.Errorf("%d repeats reported, want %d: %+v", len(reps), tc.repeats, reps)
			}
			if tc.name != "three model/list" {
				return
			}
			// Every model/list got the recorded models, with its own id.
			recorded = gjson.Get(answers["1"], "result").Raw
			if !strings.Contains(recorded, `"data":[{`) {
				t.Fatalf("the first model/list answer: %s", answers["1"])
			}
			for _, id := range []string{"7", `"x"`} {
				if gjson.Get(answers[id], "result").Raw != recorded {
					t.Errorf("model/list id %s: %.300s", id, answers[id])
				}
			}
		})
	}
}

// TestRepeatPrefersLaterFrame: a read recorded twice, before and after a rename, sent
// the second time before the rename (the TUI does this from run to run) is the later
// recorded read, held for its turn and answered with the renamed thread, not a
// repeat of the first read; the replay then ends with every recorded frame received.
func TestRepeatPrefersLaterFrame(t *testing.T) {
	var tid string
	read := func(id string) string {
		return `{"id":` + id + `,"method":"thread/read","params":{"threadId":"` + tid + `"}}`
	}
	rename := func(id string) string {
		return `{"id":` + id + `,"method":"thread/name/set","params":{"threadId":"` + tid + `","name":"alpha"}}`
	}
	path := recordReal(t, func(c *conn, work string) {
		c.send(initialize(`1`))
		c.response(`1`)
		c.send(`{"method":"initialized"}`)
		c.send(threadStart(`2`, work, "never"))
		l := c.response(`2`)
		tid = gjson.Get(l[len(l)-1], "result.thread.id").Str
		c.send(read(`3`))
		c.response(`3`)
		c.send(rename(`4`))
		c.response(`4`)
		c.send(read(`5`))
		c.response(`5`)
	})
	sc := load(t, path, 0)
	var reps []replay.Repeat
	s := serve(t, &replay.Server{Script: sc, OnRepeat: func(r replay.Repeat) { reps = append(reps, r) }})
	s.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`2`, recordedCwd(sc), "never"))
	s.response(`2`)
	s.send(read(`3`))
	s.response(`3`)
	s.send(read(`5`), rename(`4`))
	var answer string
	seen := map[string]bool{}
	s.until("the answers to ids 4 and 5", func(l string) bool {
		if id := gjson.Get(l, "id").Raw; id != "" && !gjson.Get(l, "method").Exists() {
			seen[id] = true
			if id == `5` {
				answer = l
			}
		}
		return seen[`4`] && seen[`5`]
	})
	err := s.finish()
	s.rest()
	if err != nil {
		t.Fatalf("Serve: %v\n%s", err, s.log)
	}
	if len(reps) != 0 {
		t.Errorf("repeats %+v, want none: the second read has its own recorded frame", reps)
	}
	if got := gjson.Get(answer, "result.thread.name").Str; got != "alpha" {
		t.Errorf("second thread/read answered %s, want the recorded answer after the rename (name alpha)", answer)
	}
}
