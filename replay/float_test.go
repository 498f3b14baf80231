package replay_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/replay"
)

// Requests outside any thread, as a rich client sends them around its first turn.
var (
	modelList  = `{"id":%s,"method":"model/list","params":{}}`
	configRead = `{"id":%s,"method":"config/read","params":{"includeLayers":false}}`
	threadList = `{"id":%s,"method":"thread/list","params":{}}`
)

func req(format, id string) string { return strings.Replace(format, "%s", id, 1) }

// startup is a lifetime of a rich client: the handshake, then model/list,
// config/read and thread/list, each after the previous answer, then a thread.
func startup(c *conn, work string) {
	c.send(initialize(`1`))
	c.response(`1`)
	c.send(`{"method":"initialized"}`)
	for i, f := range []string{modelList, configRead, threadList} {
		id := string(rune('2' + i))
		c.send(req(f, id))
		c.response(id)
	}
	c.send(threadStart(`5`, work, "never"))
	c.response(`5`)
	c.notification("thread/started")
}

// TestFloatingRequests: requests outside any thread match whatever their order
// (each gets its own recorded answer), one never sent is skipped without holding
// back what follows (patience off: nothing is released by waiting), one sent more
// often than recorded gets the recorded answer again, and Serve succeeds, listing
// both on Log. Strict refuses the same client.
func TestFloatingRequests(t *testing.T) {
	sc := load(t, recordReal(t, startup), 0)
	cwd := recordedCwd(sc)
	live := func(s *served) map[string]string {
		got := map[string]string{}
		s.send(initialize(`"a"`), `{"method":"initialized"}`)
		s.response(`"a"`)
		// thread/list first, config/read twice, model/list never.
		for _, r := range [][2]string{{threadList, `"b"`}, {configRead, `"c"`}, {configRead, `"d"`}} {
			s.send(req(r[0], r[1]))
			l := s.response(r[1])
			got[r[1]] = l[len(l)-1]
		}
		s.send(threadStart(`"e"`, cwd, "never"))
		s.response(`"e"`)
		s.notification("thread/started")
		return got
	}

	s := serve(t, &replay.Server{Script: sc, Patience: -1})
	got := live(s)
	if err := s.finish(); err != nil {
		t.Fatalf("Serve: %v\n%s", err, s.log)
	}
	s.rest()
	if !gjson.Get(got[`"b"`], "result.data").IsArray() {
		t.Errorf("thread/list answered %.300s", got[`"b"`])
	}
	for _, id := range []string{`"c"`, `"d"`} {
		if !gjson.Get(got[id], "result.config").Exists() {
			t.Errorf("config/read %s answered %.300s", id, got[id])
		}
	}
	log := s.log.String()
	for _, want := range []string{
		"1 recorded request(s) outside any thread never came and were skipped",
		"request model/list",
		"1 request(s) outside any thread came more often than recorded",
		"request config/read x1",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}

	s = serve(t, &replay.Server{Script: sc, Strict: true, Patience: -1})
	s.send(initialize(`"a"`), `{"method":"initialized"}`)
	s.response(`"a"`)
	s.send(req(threadList, `"b"`))
	if l := s.response(`"b"`); !strings.Contains(l[len(l)-1], `"code":-32600`) {
		t.Errorf("strict: thread/list out of order answered %.300s", l[len(l)-1])
	}
	if err := s.finish(); !errors.Is(err, replay.ErrNoMatch) {
		t.Errorf("strict: Serve: %v, want ErrNoMatch", err)
	}
}

// TestFloatingPatience: a client that waits for a notification recorded after a
// request outside any thread it never sends is not kept waiting for ever: after
// Patience the request is skipped, the notification comes, and Log says what was
// waited for.
func TestFloatingPatience(t *testing.T) {
	// model/list sent right after initialize: the server's notifications that
	// follow the handshake are recorded after it.
	sc := load(t, recordReal(t, func(c *conn, _ string) {
		c.send(initialize(`1`), req(modelList, `2`))
		c.response(`2`)
	}), 0)
	note := sc.Server[len(sc.Server)-1]
	for _, f := range sc.Server {
		if strings.Contains(string(f.Line), `"remoteControl/status/changed"`) {
			note = f
		}
	}
	if note.After < 2 {
		t.Skipf("the server's notification was recorded before model/list (after %d client frames): nothing to wait for", note.After)
	}
	s := serve(t, &replay.Server{Script: sc, Patience: 50 * time.Millisecond})
	s.send(initialize(`1`))
	if l := s.response(`1`); !strings.Contains(strings.Join(l, ""), "remoteControl/status/changed") {
		s.notification("remoteControl/status/changed")
	}
	if err := s.finish(); err != nil {
		t.Fatalf("Serve: %v\n%s", err, s.log)
	}
	if log := s.log.String(); !strings.Contains(log, "waited for request model/list") || !strings.Contains(log, "skipped it (patience)") {
		t.Errorf("log:\n%s", log)
	}
}

// TestHeldRequest: a request of a thread sent before the one recorded before it is
// held, and matched in its turn once that one comes, within a long patience: no
// answer goes out of order and Log says nothing about it.
func TestHeldRequest(t *testing.T) {
	var thread string
	sc := load(t, recordReal(t, func(c *conn, work string) {
		c.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`2`, work, "never"))
		l := c.response(`2`)
		thread = gjson.Get(l[len(l)-1], "result.thread.id").Str
		c.send(`{"id":3,"method":"thread/name/set","params":{"threadId":"` + thread + `","name":"alpha"}}`)
		c.response(`3`)
		c.send(`{"id":4,"method":"thread/read","params":{"threadId":"` + thread + `"}}`)
		c.response(`4`)
	}), 0)
	s := serve(t, &replay.Server{Script: sc, Patience: 10 * time.Second})
	s.send(initialize(`1`), `{"method":"initialized"}`, threadStart(`2`, recordedCwd(sc), "never"))
	s.response(`2`)
	start := time.Now()
	s.send(`{"id":4,"method":"thread/read","params":{"threadId":"` + thread + `"}}`)
	s.send(`{"id":3,"method":"thread/name/set","params":{"threadId":"` + thread + `","name":"alpha"}}`)
	got := strings.Join(s.response(`4`), "")
	if !strings.Contains(got, `"id":3`) || strings.Index(got, `"id":3`) > strings.Index(got, `"id":4`) {
		t.Errorf("thread/read was answered before thread/name/set:\n%s", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the held request waited %v: patience released it, not its turn", d)
	}
	if err := s.finish(); err != nil {
		t.Fatalf("Serve: %v\n%s", err, s.log)
	}
	if log := s.log.String(); strings.Contains(log, "out of order") {
		t.Errorf("log:\n%s", log)
	}
}
