package view_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

var placeholderKey = regexp.MustCompile(`:[0-9a-f]{6}\\u003e`)

// TestWriteHTMLFileSameAsWriteHTML: the page written from the file read twice is
// byte for byte the page of the recording read whole, on the fixtures, a recording
// with findings, redactions, server restarts, exits and runs of deltas across
// threads, hostile recordings, and with frames left out past the size limit.
func TestWriteHTMLFileSameAsWriteHTML(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/*/*.jsonl")
	more, _ := filepath.Glob("../fixtures/*/*/*.jsonl")
	files = append(append(files, more...), "../recorder/testdata/format-v1.golden.jsonl")
	dir := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	var b strings.Builder
	b.WriteString(`{"type":"header","format":1,"codexVersion":"0.171.0"}` + "\n")
	seq := 0
	frame := func(dir, msg string) {
		seq++
		kind := "notification"
		switch {
		case strings.Contains(msg, `"result"`):
			kind = "response"
		case strings.Contains(msg, `"id"`):
			kind = "request"
		}
		fmt.Fprintf(&b, `{"type":"frame","seq":%d,"t":%d.5,"dir":%q,"kind":%q,"msg":%s}`+"\n", seq, seq, dir, kind, msg)
	}
	for seg := 1; seg <= 2; seg++ {
		if seg > 1 {
			fmt.Fprintf(&b, `{"type":"segment","t":%d,"segment":%d,"command":["codex","app-server"]}`+"\n", seq, seg)
		}
		frame("c2s", `{"id":1,"method":"turn/start","params":{"threadId":"t1"}}`)
		frame("s2c", `{"method":"turn/started","params":{"threadId":"t1","turn":{"id":"u1"}}}`)
		for i := range 5 {
			frame("s2c", fmt.Sprintf(`{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"i1","delta":"d%d "}}`, i))
			if i == 2 {
				fmt.Fprintf(&b, `{"type":"finding","seq":%d,"dir":"s2c","rule":"r","severity":"warning","pointer":"/params","reason":"x"}`+"\n", seq)
			}
		}
		frame("s2c", `{"method":"item/agentMessage/delta","params":{"threadId":"t2","turnId":"u2","itemId":"i2","delta":"other"}}`)
		frame("s2c", `{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"i1","delta":"more"}}`)
		frame("s2c", `{"method":"item/agentMessage/delta","params":{"threadId":"t1","turnId":"u1","itemId":"i1","delta":"again"}}`)
		fmt.Fprintf(&b, `{"type":"redaction","seq":2,"dir":"s2c","pointer":"/params/x","reason":"secret","detail":"<k>"}`+"\n")
		frame("s2c", `{"id":1,"result":{"turn":{"id":"u1"}}}`)
		frame("s2c", `{"id":7,"method":"item/commandExecution/requestApproval","params":{"threadId":"t1"}}`)
		fmt.Fprintf(&b, `{"type":"exit","t":%d,"segment":%d,"exitCode":1}`+"\n", seq, seg)
	}
	frame("c2s", `{"id":7,"result":{"decision":"accept"}}`)
	write("mixed.jsonl", []byte(b.String()+`{"type":"trailer","ended":"client-eof","exitCode":0,"duration":9}`+"\n"))
	write("torn.jsonl", []byte(b.String()+"\x00garbage\n"+`{"type":"frame","seq":99,"dir":"s2c","msg":{"me`))
	write("terminal.jsonl", hostile.TerminalRecording(5, 2000))
	write("deltas.jsonl", hostile.DeltasRecording(300, 10))
	for _, p := range files {
		for _, page := range []view.Page{{}, {Reveal: true}, {MaxBytes: 300}} {
			rec, err := recorder.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var want, got bytes.Buffer
			if err := page.WriteHTML(&want, rec); err != nil {
				t.Fatal(err)
			}
			problems, err := page.WriteHTMLFile(&got, p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			// Masked values' placeholders are keyed anew by each page's sanitizer.
			if !bytes.Equal(placeholderKey.ReplaceAll(got.Bytes(), nil), placeholderKey.ReplaceAll(want.Bytes(), nil)) {
				t.Fatalf("%s %+v: the page from the file (%d bytes) is not the page of the recording (%d bytes)", p, page, got.Len(), want.Len())
			}
			if !reflect.DeepEqual(problems, rec.Problems) {
				t.Fatalf("%s: problems %v, want %v", p, problems, rec.Problems)
			}
		}
	}
	if _, err := (view.Page{}).WriteHTMLFile(&bytes.Buffer{}, filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Fatal("a missing file: no error")
	}
}
