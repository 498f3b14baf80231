package extend_test

import (
	"strings"
	"testing"

	"github.com/codexrec/codexrec/extend"
)

const (
	recThread  = "01a226fa-809e-7f72-ad1c-89518fd21b1d"
	liveThread = "01a235aa-0fb8-7540-9572-fe1983359506"
	recTurn    = "01a226fa-8134-7de2-b734-74e95602d01d"
	liveTurn   = "01a235aa-1111-7de2-b734-74e95602d01d"
)

func TestMapLearn(t *testing.T) {
	var m extend.Map
	replayed := `{"id":7,"result":{"thread":{"id":"` + recThread + `","cwd":"/work/a","name":"first thread"},"turn":{"id":"` + recTurn + `"},"short":{"id":"abc"},"itemIds":["item-aaaaaaaa"]}}`
	live := `{"id":9,"result":{"thread":{"id":"` + liveThread + `","cwd":"/work/b","name":"other thread"},"turn":{"id":"` + liveTurn + `"},"short":{"id":"xyz"},"itemIds":["item-bbbbbbbb"]}}`
	if n := m.Learn([]byte(replayed), []byte(live)); n != 3 {
		t.Fatalf("learned %d pairs, want 3 (thread, turn, the item of itemIds)", n)
	}
	for client, want := range map[string]string{recThread: liveThread, recTurn: liveTurn, "item-aaaaaaaa": "item-bbbbbbbb"} {
		if got, ok := m.Live(client); !ok || got != want {
			t.Errorf("Live(%s) = %q %v, want %q", client, got, ok, want)
		}
	}
	for _, notID := range []string{"/work/a", "first thread", "abc", "7"} {
		if _, ok := m.Live(notID); ok {
			t.Errorf("%q is mapped: only ids of %d characters or more under id keys are", notID, extend.MinIDLen)
		}
	}
	// The same pair again is nothing new; a client id paired with another live id
	// is a conflict, refused.
	if m.Add(recThread, liveThread) || m.Conflicts != 0 {
		t.Fatalf("a known pair added again, or counted as a conflict (%d)", m.Conflicts)
	}
	if m.Add(recThread, "01a235aa-ffff-7540-9572-fe1983359506") || m.Conflicts != 1 {
		t.Fatalf("a conflicting pair was added (conflicts %d)", m.Conflicts)
	}
	if m.Learn([]byte(`{"result":`), []byte(live)) != 0 {
		t.Fatal("learned from a message that is not JSON")
	}
}

func TestMapRewrite(t *testing.T) {
	var m extend.Map
	m.Add(recThread, liveThread)
	m.Add(recTurn, liveTurn)
	for _, tc := range []struct{ client, live string }{
		{`{"method":"turn/start","params":{"threadId":"` + recThread + `"}}`, `{"method":"turn/start","params":{"threadId":"` + liveThread + `"}}`},
		// Inside a path, between non-alphanumerics, an id is replaced too.
		{`{"path":"/h/sessions/rollout-2026-` + recThread + `.jsonl","turnId":"` + recTurn + `"}`,
			`{"path":"/h/sessions/rollout-2026-` + liveThread + `.jsonl","turnId":"` + liveTurn + `"}`},
		// A longer token that merely contains an id is left alone.
		{`{"x":"` + recThread + `ff","y":"aa` + recThread + `"}`, `{"x":"` + recThread + `ff","y":"aa` + recThread + `"}`},
		{`no ids at all`, `no ids at all`},
	} {
		if got := string(m.ToLive([]byte(tc.client))); got != tc.live {
			t.Errorf("ToLive(%s)\n = %s\nwant %s", tc.client, got, tc.live)
		}
		if got := string(m.ToClient([]byte(tc.live))); got != tc.client {
			t.Errorf("ToClient(%s)\n = %s\nwant %s", tc.live, got, tc.client)
		}
	}
	var empty extend.Map
	if got := string(empty.ToLive([]byte(recThread))); got != recThread {
		t.Fatalf("the empty map rewrote %s to %s", recThread, got)
	}
}

// FuzzMapRoundTrip: a line without live ids goes to the live server and back
// unchanged, whatever it holds.
func FuzzMapRoundTrip(f *testing.F) {
	f.Add([]byte(`{"params":{"threadId":"` + recThread + `"}}`))
	f.Add([]byte(recThread + recThread))
	f.Add([]byte("-" + recTurn + "-" + recThread))
	f.Fuzz(func(t *testing.T, line []byte) {
		var m extend.Map
		m.Add(recThread, liveThread)
		m.Add(recTurn, liveTurn)
		s := string(line)
		for _, live := range []string{liveThread, liveTurn} {
			if strings.Contains(s, live) {
				return
			}
		}
		if back := m.ToClient(m.ToLive(line)); string(back) != s {
			t.Fatalf("%q -> %q -> %q", line, m.ToLive(line), back)
		}
	})
}
