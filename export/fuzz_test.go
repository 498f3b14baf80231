package export_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/codexrec/codexrec/export"
	"github.com/codexrec/codexrec/recorder"
)

// FuzzExport: whatever a readable recording holds, every export is valid JSON (one
// document, or one per line) and nothing panics. Masking is off (Reveal): the
// sanitizer has fuzz targets of its own, and building one per input would leave the
// fuzzer a few inputs a minute.
func FuzzExport(f *testing.F) {
	h := `{"type":"header","format":1,"started":"2026-12-01T10:00:00Z"}` + "\n"
	f.Add(h + `{"type":"frame","seq":1,"t":0.1,"dir":"c2s","kind":"request","method":"turn/start","id":1,"msg":{"id":1,"method":"turn/start","params":{"threadId":"t"}}}` + "\n" +
		`{"type":"frame","seq":2,"t":0.2,"dir":"s2c","kind":"error","method":"turn/start","id":1,"msg":{"id":1,"error":{"code":-1,"message":"x"}}}` + "\n")
	f.Add(h + `{"type":"frame","seq":1,"t":0.1,"dir":"stderr","raw":"\u001b[31mred"}` + "\n" + `{"type":"trailer","ended":"client-eof","exitCode":0,"duration":1,"frames":{}}` + "\n")
	f.Add(h + `{"type":"frame","seq":1,"t":0.1,"dir":"s2c","kind":"raw","reason":"invalid-utf8","rawBase64":"/w=="}` + "\n")
	f.Add(`{"type":"header","format":1,"socket":{"transport":"ws","session":"s","connection":1,"headers":{"Host":["h:1"]}}}` + "\n" +
		`{"type":"frame","seq":1,"t":0,"dir":"s2c","kind":"notification","method":"turn/completed","msg":{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"u","status":"failed"}}}}` + "\n")
	f.Fuzz(func(t *testing.T, data string) {
		rec, err := recorder.ReadAll(bytes.NewReader([]byte(data)), "fuzz")
		if err != nil {
			return
		}
		for _, format := range export.Formats {
			var buf bytes.Buffer
			if err := export.Write(&buf, format, []*recorder.Recording{rec}, export.Options{Reveal: true}); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			if format != export.JSONL {
				if !json.Valid(buf.Bytes()) {
					t.Fatalf("%s: not JSON: %.300s", format, buf.Bytes())
				}
				continue
			}
			sc := bufio.NewScanner(&buf)
			sc.Buffer(nil, 1<<26)
			for sc.Scan() {
				if !json.Valid(sc.Bytes()) {
					t.Fatalf("jsonl line not JSON: %.300s", sc.Bytes())
				}
			}
		}
	})
}
