package diff_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/diff"
)

// TestCrossedNotificationsAreMoves: two notifications of one method that arrive in
// another order (an MCP server's "starting" before the thread/start response and its
// "ready" where "starting" was, as a loaded machine reruns the mcp-tool fixture) are
// two moves: --ignore-moves finds nothing, streamed and held alike. The alignment on
// method keys pairs "starting" with "ready"; without uncrossing, the report had a
// change, an added and a removed message.
func TestCrossedNotificationsAreMoves(t *testing.T) {
	old := filepath.Join("..", "fixtures", "hermetic", "0.163.0", "mcp-tool.jsonl")
	b, err := os.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	find := func(sub string) int {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return i
			}
		}
		t.Fatalf("no line with %s", sub)
		return -1
	}
	starting := find(`"status":"starting"`)
	ready := find(`"status":"ready"`)
	response := find(`"kind":"response","method":"thread/start"`)
	if !(response < starting && starting < ready) {
		t.Fatalf("fixture order changed: response %d, starting %d, ready %d", response, starting, ready)
	}
	// New order: starting before the response, ready where starting was.
	var moved []string
	for i, l := range lines {
		switch i {
		case response:
			moved = append(moved, lines[starting], l)
		case starting:
			moved = append(moved, lines[ready])
		case ready:
		default:
			moved = append(moved, l)
		}
	}
	n := 0
	seq := regexp.MustCompile(`"seq":\d+`)
	for i, l := range moved {
		if strings.HasPrefix(l, `{"type":"frame"`) || strings.HasPrefix(l, `{"type":"stderr"`) {
			n++
			moved[i] = seq.ReplaceAllString(l, fmt.Sprintf(`"seq":%d`, n))
		}
	}
	nw := filepath.Join(t.TempDir(), "crossed.jsonl")
	if err := os.WriteFile(nw, []byte(strings.Join(moved, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	var streamed, held bytes.Buffer
	r1, err := diff.Run(old, nw, diff.RunOptions{Out: &streamed})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := diff.Run(old, nw, diff.RunOptions{Out: &held, Page: func(*diff.Session, *diff.Session, *diff.Report) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), held.Bytes()) {
		t.Errorf("streamed and held reports differ:\n%s\n---\n%s", streamed.String(), held.String())
	}
	for _, r := range []*diff.Report{r1, r2} {
		if r.Same || !r.OnlyMoves() || r.Differs(true) {
			t.Errorf("crossed notifications: same %v, only moves %v; want two moves:\n%s", r.Same, r.OnlyMoves(), streamed.String())
		}
	}
	if got := strings.Count(streamed.String(), "moved"); got < 2 {
		t.Errorf("want both notifications reported as moved, %d mentions:\n%s", got, streamed.String())
	}
}
