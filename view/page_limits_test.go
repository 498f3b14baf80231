package view_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

// pageData is the JSON data block of a page.
func pageData(t *testing.T, page []byte) map[string]any {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script id="codexrec-data" type="application/json">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatal("no data block")
	}
	var d map[string]any
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatalf("data block: %v", err)
	}
	return d
}

// TestPageMasksAndLimits: a page masks secrets unless revealed, keeps escapes as
// JSON escapes of the same value, and past MaxBytes leaves frames' exact text out
// and says so.
func TestPageMasksAndLimits(t *testing.T) {
	rec, err := recorder.ReadAll(bytes.NewReader(hostile.TerminalRecording(50, 1000)), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []view.Page{{}, {Reveal: true}, {MaxBytes: 10_000}} {
		var b bytes.Buffer
		if err := p.WriteHTML(&b, rec); err != nil {
			t.Fatal(err)
		}
		page := b.Bytes()
		if bytes.ContainsAny(page, "\x1b\x07\u009b\u202e") {
			t.Errorf("%+v: a raw control in the page", p)
		}
		if shown := bytes.Contains(page, []byte(hostile.Secrets[0])); shown != p.Reveal {
			t.Errorf("%+v: secret shown %v", p, shown)
		}
		d := pageData(t, page)
		s := d["sessions"].([]any)[0].(map[string]any)
		frames := s["frames"].([]any)
		withText := 0
		for _, f := range frames {
			if _, ok := f.(map[string]any)["j"]; ok {
				withText++
			}
		}
		info, _ := d["info"].(map[string]any)
		omitted, _ := info["omitted"].(string)
		if p.MaxBytes > 0 {
			if withText == 0 || withText >= len(frames)-2 || !strings.Contains(omitted, "left out") {
				t.Errorf("limit %d: %d of %d frames with their text, info %q", p.MaxBytes, withText, len(frames), omitted)
			}
		} else if omitted != "" || withText < len(frames)-2 {
			t.Errorf("no limit reached: %d of %d frames with their text, info %q", withText, len(frames), omitted)
		}
		if p.Reveal {
			kept := false
			for _, f := range frames {
				j, _ := f.(map[string]any)["j"].(string)
				kept = kept || strings.Contains(j, "\x1b]52;")
			}
			if !kept {
				t.Errorf("revealed: no frame's text keeps its recorded escape")
			}
		}
	}
}
