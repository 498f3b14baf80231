package view_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// renderText runs the terminal renderer over the recording at path, as codexrec show
// does, naming it name in the header line.
func renderText(t *testing.T, path, name string, cfg view.Text) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, name)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cfg.W = &out
	if err := cfg.Header(name, rd.Header()); err != nil {
		t.Fatal(err)
	}
	for e, err := range rd.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.Entry(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Trailer(rd.Trailer()); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestShowGolden compares the timeline of every committed fixture recording with its
// golden file (go test ./view -run TestShowGolden -update rewrites them).
func TestShowGolden(t *testing.T) {
	for _, rel := range fixtures(t) {
		t.Run(rel, func(t *testing.T) {
			got := renderText(t, filepath.Join(fixtureDir, rel), rel, view.Text{})
			golden := filepath.Join("testdata", "show", strings.TrimSuffix(rel, ".jsonl")+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./view -run TestShowGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("show %s differs from %s (-update rewrites it):\n%s", rel, golden, firstDiff(string(want), got))
			}
			checkTimeline(t, rel, got)
		})
	}
}

// checkTimeline asserts what every timeline must hold, whatever the golden file says:
// no escape sequences when colour is off, and a last line saying how it ended.
func checkTimeline(t *testing.T, rel, out string) {
	t.Helper()
	if strings.Contains(out, "\x1b") {
		t.Errorf("%s: escape sequences in plain output", rel)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "── ended ") && !strings.HasPrefix(last, "── no trailer") {
		t.Errorf("%s: last line %q does not say how the session ended", rel, last)
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + w + "\n  got:  " + g
		}
	}
	return "(equal?)"
}
