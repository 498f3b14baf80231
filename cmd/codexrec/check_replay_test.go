package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

// faultFixture is the real capture the fault-injecting replay serves.
var faultFixture = filepath.Join("..", "..", "fixtures", "hermetic", "0.171.0", "plain.jsonl")

// recordReplay runs `codexrec record -o OUT -- codexrec replay --fault FAULT FIXTURE`,
// plays the fixture's recorded client against it (a request after the previous
// answer), reads the extra server lines the fault adds (extra may be negative), and
// returns the new recording.
func recordReplay(t *testing.T, fault string, extra int) *recorder.Recording {
	t.Helper()
	fix, err := recorder.ReadFile(faultFixture)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "replayed.jsonl")
	sess := startSession(t, "", nil, "record", "-o", out, "--", codexrecBin, "replay", "--fault", fault, faultFixture)
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		rd := wire.NewReader(sess.stdout)
		for {
			l, err := rd.ReadLine()
			if len(l) > 0 {
				lines <- string(l)
			}
			if err != nil {
				return
			}
		}
	}()
	got := 0
	next := func(what string) string {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("replay ended while waiting for %s", what)
			}
			got++
			return l
		case <-time.After(20 * time.Second):
			t.Fatalf("nothing from the replay for 20s while waiting for %s", what)
		}
		return ""
	}
	want := 0
	for _, e := range fix.Frames() {
		if e.Dir == wire.ServerToClient {
			want++
		}
	}
	for _, e := range fix.Frames(wire.ClientToServer) {
		if _, err := sess.stdin.Write(e.Line); err != nil {
			t.Fatal(err)
		}
		if e.Msg.Kind == wire.KindRequest {
			for id := string(e.Msg.ID); ; {
				if l := next("the answer to " + e.Msg.Method); gjson.Get(l, "id").Raw == id && !gjson.Get(l, "method").Exists() {
					break
				}
			}
		}
	}
	for got < want+extra {
		next(fmt.Sprintf("server line %d of %d", got+1, want+extra))
	}
	sess.stdin.Close()
	// The goroutine above reads stdout to its end; the replay may exit 1 (a fault is a
	// difference): the recording is what counts.
	sess.cmd.Wait()
	rec, err := recorder.ReadFile(out)
	if err != nil {
		t.Fatalf("the replayed session's recording: %v", err)
	}
	return rec
}

func seqOf(t *testing.T, rec *recorder.Recording, dir wire.Direction, kind wire.Kind, method string, n int) int64 {
	t.Helper()
	for _, e := range rec.Frames(dir) {
		if e.Msg.Kind == kind && (method == "" || e.Msg.Method == method) {
			if n == 0 {
				return e.Seq
			}
			n--
		}
	}
	t.Fatalf("replayed recording has no %s %s %s", dir, kind, method)
	return 0
}

// streamedItem is the 1-based occurrence of the first item/started in the fixture
// directly followed by a delta of the same item, and that item's id.
func streamedItem(t *testing.T) (int, string) {
	fix, err := recorder.ReadFile(faultFixture)
	if err != nil {
		t.Fatal(err)
	}
	s2c := fix.Frames(wire.ServerToClient)
	n := 0
	for i, e := range s2c[:len(s2c)-1] {
		if e.Msg.Method != "item/started" {
			continue
		}
		n++
		id := gjson.GetBytes(e.JSON(), "params.item.id").Str
		if next := s2c[i+1]; strings.Contains(strings.ToLower(next.Msg.Method), "delta") && gjson.GetBytes(next.JSON(), "params.itemId").Str == id {
			return n, id
		}
	}
	t.Fatal("the fixture has no item/started followed by its delta")
	return 0, ""
}

// TestCheckReplayFaults: a session served by `codexrec replay --fault`, recorded by
// `codexrec record`, is checked, and check names the injected fault with its frames.
func TestCheckReplayFaults(t *testing.T) {
	n, item := streamedItem(t)
	for _, tc := range []struct {
		fault string
		extra int
		want  func(rec *recorder.Recording) []string
		// some: want is a subset of what check reports, not all of it.
		some bool
	}{
		{"drop:turn/completed", -1, func(rec *recorder.Recording) []string {
			return []string{fmt.Sprintf("turn-incomplete%v", []int64{
				seqOf(t, rec, wire.ServerToClient, wire.KindResponse, "turn/start", 0),
				seqOf(t, rec, wire.ServerToClient, wire.KindNotification, "turn/started", 0)})}
		}, false},
		{fmt.Sprintf("reorder:item/started#%d", n), 0, func(rec *recorder.Recording) []string {
			var started, delta int64
			for _, e := range rec.Frames(wire.ServerToClient) {
				msg := e.JSON()
				if started == 0 && e.Msg.Method == "item/started" && gjson.GetBytes(msg, "params.item.id").Str == item {
					started = e.Seq
				}
				if delta == 0 && gjson.GetBytes(msg, "params.itemId").Str == item {
					delta = e.Seq
				}
			}
			return []string{fmt.Sprintf("delta-without-item[%d]", delta), fmt.Sprintf("item-order[%d %d]", started, delta)}
		}, false},
		{"garbage", 1, func(rec *recorder.Recording) []string {
			return []string{fmt.Sprintf("stdout-noise[%d]", seqOf(t, rec, wire.ServerToClient, wire.KindRaw, "", 0))}
		}, false},
		// The replay moves turn/completed before the turn/start response, so every event of
		// the turn now follows its completion: check reports early-completion and, rightly,
		// the late events and the late turn/started too.
		{"completed-early", 0, func(rec *recorder.Recording) []string {
			return []string{fmt.Sprintf("early-completion%v", []int64{
				seqOf(t, rec, wire.ServerToClient, wire.KindNotification, "turn/completed", 0),
				seqOf(t, rec, wire.ServerToClient, wire.KindResponse, "turn/start", 0)})}
		}, true},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			rec := recordReplay(t, tc.fault, tc.extra)
			r := runCodexrec(t, "", nil, "check", "--json", rec.Name)
			var rep struct {
				Recordings []struct {
					Findings []struct {
						Rule, Severity, Message string
						Seqs                    []int64
					}
				}
			}
			if err := json.Unmarshal(r.stdout, &rep); err != nil || len(rep.Recordings) != 1 {
				t.Fatalf("check --json (exit %d): %v\n%s%s", r.code, err, r.stdout, r.stderr)
			}
			var got []string
			for _, f := range rep.Recordings[0].Findings {
				if f.Severity != "info" {
					got = append(got, fmt.Sprintf("%s%v", f.Rule, f.Seqs))
				}
			}
			want := tc.want(rec)
			slices.Sort(got)
			slices.Sort(want)
			ok := slices.Equal(got, want)
			if tc.some {
				ok = true
				for _, w := range want {
					ok = ok && slices.Contains(got, w)
				}
			}
			if !ok {
				t.Errorf("check found %v, want %v\n%s", got, want, r.stdout)
			}
			if r.code != 1 {
				t.Errorf("exit %d, want 1", r.code)
			}
		})
	}
}
