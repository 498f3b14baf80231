package diff_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/codexbin"
)

// changeLines flattens a report to "dir kind method: change pointer" lines, sorted,
// without counts and seqs: what must (and must not) be reported.
func changeLines(r *diff.Report) []string {
	var out []string
	for _, g := range r.Groups {
		for _, c := range g.Changes {
			out = append(out, fmt.Sprintf("%s %s %s: %s %s", g.Dir, g.Kind, g.Method, c.Change, c.Pointer))
		}
	}
	for _, m := range r.MethodsAdded {
		out = append(out, fmt.Sprintf("method only in new: %s %s %s", m.Dir, m.Kind, m.Method))
	}
	for _, m := range r.MethodsRemoved {
		out = append(out, fmt.Sprintf("method only in old: %s %s %s", m.Dir, m.Kind, m.Method))
	}
	sort.Strings(out)
	return out
}

// TestRealSessions captures the shipped plain scenario (one turn against the scripted
// fake model) with the real binaries, unsanitized: twice with the oldest pinned
// version, once with the newest. Twice with one binary must diff as equal (the normalisation is complete);
// across versions the report must be exactly the fields the newer binary added.
func TestRealSessions(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "old-1.jsonl")
	b := filepath.Join(dir, "old-2.jsonl")
	c := filepath.Join(dir, "new.jsonl")
	capturePlain(t, codexbin.Oldest, a)
	capturePlain(t, codexbin.Oldest, b)
	capturePlain(t, codexbin.Newest, c)
	load := func(p string) *diff.Session {
		s, err := diff.LoadFile(p, diff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	old1, old2, nw := load(a), load(b), load(c)

	t.Run("same binary twice", func(t *testing.T) {
		r := diff.Compare(old1, old2)
		if !r.Same {
			var sb strings.Builder
			r.WriteText(&sb, false)
			t.Fatalf("two recordings of one session differ:\n%s", sb.String())
		}
		for _, d := range r.Directions {
			if d.Aligned == 0 || d.Aligned != d.Old || d.Old != d.New {
				t.Errorf("%s: %+v, want every message aligned", d.Dir, d)
			}
		}
	})

	t.Run(codexbin.Oldest+" to "+codexbin.Newest, func(t *testing.T) {
		r := diff.Compare(old1, nw)
		if r.Old.CodexVersion != codexbin.Oldest || r.New.CodexVersion != codexbin.Newest {
			t.Errorf("versions %q, %q", r.Old.CodexVersion, r.New.CodexVersion)
		}
		// Measured with 0.163.0 and 0.171.0: the newer binary adds item timing and
		// moderation, the attached-thread field and a content token count; the message
		// sequence itself is unchanged. Anything else reported here is spurious.
		want := []string{
			"s2c notification item/completed: added /params/contentTokenCount",
			"s2c notification item/completed: added /params/item/completedAtMs",
			"s2c notification item/completed: added /params/item/moderation",
			"s2c notification item/completed: added /params/item/startedAtMs",
			"s2c notification item/started: added /params/item/completedAtMs",
			"s2c notification item/started: added /params/item/moderation",
			"s2c notification item/started: added /params/item/startedAtMs",
			"s2c notification thread/started: added /params/thread/attachedToThreadId",
			"s2c notification turn/completed: added /params/turn/items/*/completedAtMs",
			"s2c notification turn/completed: added /params/turn/items/*/moderation",
			"s2c notification turn/completed: added /params/turn/items/*/startedAtMs",
			"s2c response thread/start: added /result/thread/attachedToThreadId",
		}
		got := changeLines(r)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			var sb strings.Builder
			r.WriteText(&sb, false)
			t.Errorf("changes:\n%s\n\nwant exactly:\n%s\n\nreport:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), sb.String())
		}
		for _, d := range r.Directions {
			if d.Added != 0 || d.Removed != 0 {
				t.Errorf("%s: %+v: the same scenario should align message for message", d.Dir, d)
			}
		}
	})
}
