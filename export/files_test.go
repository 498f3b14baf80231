package export_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/export"
	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
)

// turnsRecording is n turns on two threads, each started by a turn/start request
// and ended by turn/completed (some failed), with deltas, requests answered by
// errors, server requests, unpaired responses, raw frames, segments, and notes on
// requests, responses and deltas, some read many frames after theirs. With
// overlap, each turn's deltas interleave with deltas of the turn before it.
func turnsRecording(n int, overlap bool) []byte {
	var b strings.Builder
	seq := 0
	var late []int
	frame := func(dir, rest string) int {
		seq++
		fmt.Fprintf(&b, `{"type":"frame","seq":%d,"t":%.6f,"dir":%q,%s}`+"\n", seq, float64(seq)/1000, dir, rest)
		return seq
	}
	note := func(s int, typ string) {
		fmt.Fprintf(&b, `{"type":%q,"seq":%d,"t":0,"dir":"s2c","rule":"r-%s","severity":"warning","pointer":"/params","reason":"why <&>"}`+"\n", typ, s, typ)
	}
	delta := func(th string, k int, item, text string) int {
		return frame("s2c", fmt.Sprintf(`"kind":"notification","method":"item/agentMessage/delta","msg":{"method":"item/agentMessage/delta","params":{"threadId":%q,"turnId":"tu%d","itemId":%q,"delta":%q}}`, th, k, item, text))
	}
	b.WriteString(`{"type":"header","format":1,"codexrec":"test","started":"2026-11-29T10:00:00Z","command":["codex","app-server"],"scenario":"turns"}` + "\n")
	b.WriteString(`{"type":"segment","t":0,"segment":1,"command":["codex","app-server"]}` + "\n")
	frame("stderr", `"raw":"starting <b> & \u2028"`)
	for k := range n {
		th := []string{"th1", "th2"}[k%2]
		id := 10 + 2*k
		rq := frame("c2s", fmt.Sprintf(`"kind":"request","method":"turn/start","id":%d,"msg":{"id":%d,"method":"turn/start","params":{"threadId":%q}}`, id, id, th))
		if k%5 == 0 {
			note(rq, "redaction")
		}
		rs := frame("s2c", fmt.Sprintf(`"kind":"response","method":"turn/start","id":%d,"msg":{"id":%d,"result":{"turn":{"id":"tu%d"}}}`, id, id, k))
		if k%3 == 0 {
			late = append(late, rs)
		}
		frame("s2c", fmt.Sprintf(`"kind":"notification","method":"turn/started","msg":{"method":"turn/started","params":{"threadId":%q,"turn":{"id":"tu%d"}}}`, th, k))
		for j := range 3 {
			d := delta(th, k, fmt.Sprint("i", k), fmt.Sprint("w", j, " "))
			if j == 1 && k%3 == 0 {
				note(d, "finding")
			}
			if j == 2 && k%4 == 0 {
				late = append(late, d)
			}
			if overlap && k > 0 {
				if d := delta([]string{"th1", "th2"}[(k-1)%2], k-1, fmt.Sprint("j", k), "x"); j == 0 {
					note(d, "finding")
				}
			}
		}
		if k%4 == 1 {
			frame("c2s", fmt.Sprintf(`"kind":"request","method":"thread/read","id":%d,"msg":{"id":%d,"method":"thread/read","params":{"threadId":%q}}`, id+1, id+1, th))
			e := frame("s2c", fmt.Sprintf(`"kind":"error","method":"thread/read","id":%d,"msg":{"id":%d,"error":{"code":-32600,"message":"no <such> thread"}}`, id+1, id+1))
			note(e, "finding")
		}
		if k%3 == 2 {
			frame("s2c", fmt.Sprintf(`"kind":"request","method":"item/commandExecution/requestApproval","id":%d,"msg":{"id":%d,"method":"item/commandExecution/requestApproval","params":{"threadId":%q,"turnId":"tu%d"}}`, 500+k, 500+k, th, k))
			frame("s2c", `"kind":"raw","reason":"not-json","raw":"not json"`)
			frame("s2c", `"kind":"response","id":"zz","unpaired":true,"msg":{"id":"zz","result":{}}`)
		}
		if k%2 == 1 {
			for _, s := range late {
				note(s, "finding")
			}
			late = nil
		}
		status := map[bool]string{true: "failed", false: "completed"}[k%5 == 3]
		frame("s2c", fmt.Sprintf(`"kind":"notification","method":"turn/completed","msg":{"method":"turn/completed","params":{"threadId":%q,"turn":{"id":"tu%d","status":%q,"error":{"message":"boom & <x>"}}}}`, th, k, status))
		if k%6 == 5 {
			fmt.Fprintf(&b, `{"type":"segment","t":%.6f,"segment":%d,"command":["codex"]}`+"\n", float64(seq)/1000, 2+k/6)
		}
	}
	for _, s := range late {
		note(s, "finding")
	}
	note(99999, "finding")
	frame("c2s", `"kind":"request","method":"never","id":9999,"msg":{"id":9999,"method":"never","params":{"threadId":"th1"}}`)
	fmt.Fprintf(&b, `{"type":"trailer","ended":"client-eof","exitCode":3,"duration":%.6f,"frames":{},"findings":0}`+"\n", float64(seq)/1000+1)
	return []byte(b.String())
}

// WriteFiles writes, byte for byte, what Write writes for the recordings read
// whole: OTLP and JSON Lines streamed (turns on two threads, overlapping or not),
// HAR streamed (fixtures over stdio and WebSocket, several at once, hostile
// shapes, notes on frames whose seqs go back, stderr, invalid UTF-8, a torn last
// line) and the other formats through Write.
func TestWriteFilesSameOutput(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	golden, err := os.ReadFile("../recorder/testdata/format-v1.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Notes on frames whose seqs go back: each belongs to the last frame of its seq
	// read before it.
	back := strings.Replace(string(golden), `{"type":"frame","seq":5,`, `{"type":"frame","seq":2,`, 1)
	back = strings.Replace(back, `{"type":"exit"`, `{"type":"redaction","seq":2,"t":0.1,"dir":"s2c","rule":"r","pointer":"/result","reason":"<script>&"}`+"\n"+
		`{"type":"finding","seq":1,"t":0.1,"dir":"c2s","rule":"x","severity":"error","reason":"first"}`+"\n"+`{"type":"exit"`, 1)
	secret, _ := unsanitized(t)
	sets := [][]string{
		{},
		{fixtures[0]},
		fixtures,
		{write("golden.jsonl", golden)},
		{write("back.jsonl", []byte(back))},
		{write("torn.jsonl", golden[:len(golden)-30])},
		{secret},
		{write("deltas.jsonl", hostile.DeltasRecording(2000, 10)), write("line.jsonl", hostile.HugeLineRecording(1<<20))},
		{write("deep.jsonl", hostile.DeepRecording(10_000, "1"))},
		{write("turns.jsonl", turnsRecording(12, false)), write("overlap.jsonl", turnsRecording(12, true))},
	}
	for _, paths := range sets {
		var recs []*recorder.Recording
		for _, p := range paths {
			rec, err := recorder.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, rec)
		}
		for _, f := range export.Formats {
			for _, opts := range []export.Options{{Reveal: true, Creator: "v<1>"}, {}} {
				if !opts.Reveal && len(paths) == 1 && paths[0] == secret {
					continue // placeholders are keyed per masker: two runs differ
				}
				var want, got bytes.Buffer
				if err := export.Write(&want, f, recs, opts); err != nil {
					t.Fatal(err)
				}
				var warned []string
				err := export.WriteFiles(&got, f, paths, opts, func(name string, ps []recorder.Problem) {
					if len(ps) > 0 {
						warned = append(warned, name)
					}
				})
				if err != nil {
					t.Fatalf("%v %s: %v", paths, f, err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("%v %s reveal=%v: WriteFiles differs from Write:\n--- got ---\n%.3000s\n--- want ---\n%.3000s", paths, f, opts.Reveal, got.Bytes(), want.Bytes())
				}
				for _, rec := range recs {
					if len(rec.Problems) > 0 && !strings.Contains(strings.Join(warned, " "), rec.Name) {
						t.Errorf("%s: problems %v not passed to warn", rec.Name, rec.Problems)
					}
				}
			}
		}
	}
}

// A message longer than the pieces WriteFiles encodes it in comes out as
// encoding/json writes it whole: runes, invalid bytes, HTML and line separators
// at every cut, whitespace between a JSON message's members (JSON Lines compacts
// it), a long stderr line, a finding after the long frame.
func TestWriteFilesLongMessage(t *testing.T) {
	unit := `héllo <b>&</b> "wörld" \ ` + "\u2028\t日本語 \u2029"
	text := strings.Repeat(unit, (200<<10)/len(unit))
	quoted := func(s string) string {
		return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`).Replace(s)
	}
	for _, cut := range []int{0, 1, 2, 3} {
		line := `{"type":"frame","seq":1,"t":0.1,"dir":"s2c","kind":"notification","method":"m","msg":{"method": "m",` + "\t" + `"params" : {"text":"` +
			quoted(text[cut:]) + `", "n": [1, 2, {"a" : "\u003c"}]} }}`
		rec := `{"type":"header","format":1,"codexrec":"t"}` + "\n" + line + "\n" +
			`{"type":"finding","seq":1,"t":0.1,"dir":"s2c","rule":"schema/invalid","severity":"error","pointer":"/params","reason":"<r> & r"}` + "\n" +
			`{"type":"frame","seq":2,"t":0.2,"dir":"s2c","kind":"raw","reason":"invalid-utf8","rawBase64":"//4gYmluYXJ5"}` + "\n" +
			`{"type":"frame","seq":3,"t":0.3,"dir":"stderr","kind":"raw","raw":"` + quoted(text[cut:]) + `\n"}` + "\n"
		path := filepath.Join(t.TempDir(), "long.jsonl")
		if err := os.WriteFile(path, []byte(rec), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := recorder.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []export.Format{export.HAR, export.JSONL} {
			for _, opts := range []export.Options{{Reveal: true}, {}} {
				var want, got bytes.Buffer
				if err := export.Write(&want, f, []*recorder.Recording{r}, opts); err != nil {
					t.Fatal(err)
				}
				if err := export.WriteFiles(&got, f, []string{path}, opts, nil); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Fatalf("%s reveal=%v cut %d: a long message differs (%d vs %d bytes)", f, opts.Reveal, cut, got.Len(), want.Len())
				}
			}
		}
	}
}
