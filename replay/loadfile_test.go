package replay_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/replay"
)

// TestLoadFileEqualsLoad: LoadFile, which keeps the file in one buffer that every
// frame's line is a slice of, builds the same script as Load, which copies each
// line from a stream, on every fixture and on odd entries (a socket frame without
// a newline, raw and base64 frames, a message that is not the entry's last field,
// segments, garbage, a torn last line, the hostile shapes).
func TestLoadFileEqualsLoad(t *testing.T) {
	paths, err := filepath.Glob("../fixtures/*/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("../fixtures/*/*/*.jsonl")
	deeper, _ := filepath.Glob("../fixtures/*/*/*/*.jsonl")
	paths = append(append(paths, more...), deeper...)
	if len(paths) < 10 {
		t.Fatalf("found %d fixtures", len(paths))
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	odd := `{"type":"header","format":1}
{"type":"frame","seq":1,"t":0.001,"dir":"c2s","kind":"request","method":"initialize","id":1,"msg":{"id":1,"method":"initialize","params":{"cwd":"<cwd>"}},"eol":false}
{"type":"frame","seq":2,"t":0.002,"dir":"s2c","msg":{"result":{"x":"a\"b"},"id":1},"kind":"response","id":1,"method":"initialize"}
{"type":"frame","seq":3,"t":0.003,"dir":"stderr","kind":"raw","reason":"not-json","raw":"WARN something\n"}
{"type":"frame","seq":4,"t":0.004,"dir":"s2c","kind":"raw","reason":"invalid-utf8","rawBase64":"/w=="}
garbage line
{"type":"segment","t":0.005,"segment":2}
{"type":"frame","seq":5,"t":0.006,"dir":"c2s","kind":"request","method":"thread/start","id":"a\u0062","msg":{"id":"a\u0062","method":"thread/start","params":{}}}
{"type":"frame","seq":6,"t":0.007,"dir":"s2c","kind":"response","method":"thread/start","id":"a\u0062","msg":{"id":"a\u0062","result":{"thread":{"id":"th-1"}}}}
{"type":"frame","seq":7,"t":0.008,"dir":"s2c","kind":"notification","method":"turn/started","msg":{"method":"turn/sta`
	type load struct {
		path    string
		segment int
	}
	var loads []load
	for _, p := range paths {
		loads = append(loads, load{p, 0})
	}
	loads = append(loads, load{write("odd.jsonl", []byte(odd)), 1}, load{filepath.Join(dir, "odd.jsonl"), 2},
		load{write("frames.jsonl", hostile.FramesRecording(1000)), 0},
		load{write("deltas.jsonl", hostile.DeltasRecording(1000, 10)), 0},
		load{write("line.jsonl", hostile.HugeLineRecording(1<<20)), 0},
		load{write("terminal.jsonl", hostile.TerminalRecording(3, 100)), 0})
	for _, l := range loads {
		got, err := replay.LoadFile(l.path, l.segment)
		if err != nil {
			t.Fatalf("LoadFile %s: %v", l.path, err)
		}
		f, err := os.Open(l.path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := replay.Load(f, l.path, l.segment)
		f.Close()
		if err != nil {
			t.Fatalf("Load %s: %v", l.path, err)
		}
		if len(got.Client)+len(got.Server) == 0 {
			t.Errorf("%s segment %d: no frames", l.path, l.segment)
		}
		for _, c := range []struct {
			what      string
			got, want any
		}{
			{"name", got.Name, want.Name}, {"header", got.Header, want.Header},
			{"segment", got.Segment, want.Segment}, {"segments", got.Segments, want.Segments},
			{"client", got.Client, want.Client}, {"server", got.Server, want.Server},
			{"problems", got.Problems, want.Problems},
		} {
			if !reflect.DeepEqual(c.got, c.want) {
				t.Errorf("%s segment %d: %s differs:\nLoadFile %+v\nLoad     %+v", l.path, l.segment, c.what, c.got, c.want)
			}
		}
	}
}
