package view_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// FuzzSummarize: any line, classified as the proxy classifies it, has a summary of at
// most one line and bounded length.
func FuzzSummarize(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}}`,
		`{"method":"item/completed","params":{"item":{"type":"commandExecution","command":["ls","-l"],"exitCode":2}}}`,
		`{"id":0,"result":{"decision":{"acceptWithExecpolicyAmendment":{}}}}`,
		`{"id":3,"error":{"code":-32600,"message":"line\nbreak"}}`,
		"\x1b[31mERROR\x1b[0m\tsomething", `[1,2]`, `{"a":`, "\xff\xfe",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, line string, stderr bool) {
		e := recorder.Entry{Type: recorder.TypeFrame, Dir: wire.ServerToClient, Line: []byte(line + "\n")}
		if stderr {
			e.Dir = wire.Stderr
		} else {
			e.Msg = wire.Classify(e.Line)
		}
		s := view.Summarize(&e)
		if strings.ContainsAny(s, "\n\r\x1b") {
			t.Errorf("summary of %q spans lines or holds escapes: %q", line, s)
		}
		if n := utf8.RuneCountInString(s); n > 201 {
			t.Errorf("summary of %q has %d runes", line, n)
		}
	})
}

// FuzzPageData: whatever a frame holds, the page's data block holds no '<' (so it
// cannot end its script element) and decodes back to the frame's exact text.
func FuzzPageData(f *testing.F) {
	for _, s := range []string{`</script><script>alert(1)</script>`, `<!--`, "\u2028\u2029", `{"method":"</SCRIPT>"}`, "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return // the recorder keeps such lines as rawBase64; the page shows them as replacement characters
		}
		line := []byte(text + "\n")
		rec := &recorder.Recording{Name: text, Entries: []recorder.Entry{
			{Type: recorder.TypeFrame, Seq: 1, Dir: wire.ClientToServer, Msg: wire.Classify(line), Line: line},
			{Type: recorder.TypeFrame, Seq: 2, Dir: wire.Stderr, Line: line},
		}}
		var page bytes.Buffer
		if err := view.WriteHTML(&page, rec); err != nil {
			t.Fatal(err)
		}
		const open = `<script id="codexrec-data" type="application/json">`
		p := page.String()
		i := strings.Index(p, open)
		j := strings.Index(p[i:], "</script>")
		if i < 0 || j < 0 {
			t.Fatal("no data block")
		}
		block := p[i+len(open) : i+j]
		if strings.ContainsAny(block, "<>&") {
			t.Fatalf("data block holds a raw <, > or &")
		}
		var data struct {
			Sessions []struct {
				Frames []struct {
					J string `json:"j"`
				} `json:"frames"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal([]byte(block), &data); err != nil {
			t.Fatal(err)
		}
		for _, fr := range data.Sessions[0].Frames {
			if fr.J != text {
				t.Fatalf("frame text %q came back as %q", text, fr.J)
			}
		}
	})
}
