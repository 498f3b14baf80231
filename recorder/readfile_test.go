package recorder_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
)

// TestReadFileSameAsReadAll: ReadFile (the file in one buffer, lines and messages
// sliced from it) reads every recording as ReadAll (line by line, copies) does:
// the fixtures, hostile recordings, raw, base64 and unterminated frames, a message
// that is not the entry's last field, garbage lines and a torn last line.
func TestReadFileSameAsReadAll(t *testing.T) {
	files, _ := filepath.Glob("../fixtures/*/*.jsonl")
	more, _ := filepath.Glob("../fixtures/*/*/*.jsonl")
	files = append(files, more...)
	files = append(files, "testdata/format-v1.golden.jsonl")
	dir := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	hdr := `{"type":"header","format":1,"codex":{"version":"0.171.0"}}` + "\n"
	mixed := hdr +
		`{"type":"frame","seq":1,"t":1,"dir":"c2s","kind":"request","id":1,"method":"a","msg":{"id":1,"method":"a"}}` + "\n" +
		`{"type":"frame","msg":{"method":"b","params":{"x":"\u00e9\n"}},"seq":2,"t":2,"dir":"s2c","kind":"notification","method":"b"}` + "\n" +
		"\x00garbage\n" +
		`{"type":"frame","seq":3,"t":3,"dir":"stderr","raw":"log line\twith tab","eol":false}` + "\n" +
		`{"type":"frame","seq":4,"t":4,"dir":"s2c","rawBase64":"/w==","kind":"raw","reason":"not-json"}` + "\n" +
		`{"type":"frame","seq":5,"t":5,"dir":"s2c","kind":"notification","method":"c","msg":{"method":"c"},"undelivered":true}` + "\n"
	write("mixed.jsonl", []byte(mixed+`{"type":"trailer","ended":"eof","exitCode":0,"duration":1}`+"\n"))
	write("torn.jsonl", []byte(mixed+`{"type":"frame","seq":6,"t":6,"dir":"s2c","msg":{"meth`))
	write("terminal.jsonl", hostile.TerminalRecording(5, 2000))
	write("deltas.jsonl", hostile.DeltasRecording(100, 10))
	write("line.jsonl", hostile.HugeLineRecording(100<<10))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := recorder.ReadAll(bytes.NewReader(data), p)
		got, gotErr := recorder.ReadFile(p)
		if (wantErr == nil) != (gotErr == nil) {
			t.Fatalf("%s: ReadFile error %v, ReadAll error %v", p, gotErr, wantErr)
		}
		if wantErr != nil {
			continue
		}
		if len(got.Entries) != len(want.Entries) {
			t.Fatalf("%s: ReadFile %d entries, ReadAll %d", p, len(got.Entries), len(want.Entries))
		}
		for i := range want.Entries {
			if !reflect.DeepEqual(got.Entries[i], want.Entries[i]) {
				t.Fatalf("%s: entry %d:\nReadFile %+v\nReadAll  %+v", p, i, got.Entries[i], want.Entries[i])
			}
		}
		if !reflect.DeepEqual(got.Problems, want.Problems) || !reflect.DeepEqual(got.Trailer, want.Trailer) || !reflect.DeepEqual(got.Header, want.Header) {
			t.Fatalf("%s: header, trailer or problems differ:\n%+v %+v %+v\n%+v %+v %+v", p, got.Header, got.Trailer, got.Problems, want.Header, want.Trailer, want.Problems)
		}
	}
	if len(files) < 10 {
		t.Fatalf("only %d recordings read", len(files))
	}
}
