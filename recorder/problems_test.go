package recorder_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/jsonx"
	"github.com/codexrec/codexrec/internal/testing/hostile"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

const (
	hdr = `{"type":"header","format":1}` + "\n"
	f1  = `{"type":"frame","seq":1,"t":0.1,"dir":"c2s","kind":"notification","msg":{"method":"a"}}` + "\n"
	f2  = `{"type":"frame","seq":2,"t":0.2,"dir":"s2c","kind":"notification","msg":{"method":"b"}}` + "\n"
	tr  = `{"type":"trailer","ended":"client-eof","exitCode":0,"duration":1,"frames":{"c2s":1,"s2c":1,"stderr":0}}` + "\n"
)

// Structural problems are collected, never silent and never fatal; the entries are
// served as they are.
func TestReaderProblems(t *testing.T) {
	tests := []struct {
		name, in string
		frames   int
		want     []recorder.ProblemKind
	}{
		{"clean", hdr + f1 + f2 + tr, 2, nil},
		{"no trailer", hdr + f1 + f2, 2, nil},
		{"torn last line", hdr + f1 + f2[:40], 1, []recorder.ProblemKind{recorder.ProblemTruncated}},
		{"torn trailer", hdr + f1 + f2 + tr[:30], 2, []recorder.ProblemKind{recorder.ProblemTruncated}},
		{"seq backwards", hdr + f2 + f1 + tr, 2, []recorder.ProblemKind{recorder.ProblemSeqOrder}},
		{"trailer mid-file", hdr + f1 + tr + f2, 2, []recorder.ProblemKind{recorder.ProblemTrailerNotLast}},
		{"two trailers", hdr + f1 + f2 + tr + tr, 2, []recorder.ProblemKind{recorder.ProblemTrailerNotLast}},
		{"two headers", hdr + f1 + hdr + f2 + tr, 2, []recorder.ProblemKind{recorder.ProblemHeaders}},
		{"counts disagree", hdr + f1 + tr, 1, []recorder.ProblemKind{recorder.ProblemCounts}},
		{"undelivered count disagrees", hdr + f1 + f2 + strings.Replace(tr, `"exitCode"`, `"undelivered":3,"exitCode"`, 1), 2, []recorder.ProblemKind{recorder.ProblemCounts}},
		{"counts left out", hdr + f1 + f2 + `{"type":"trailer","ended":"client-eof","frames":{}}` + "\n", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := recorder.ReadAll(strings.NewReader(tt.in), "x.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Frames()) != tt.frames {
				t.Errorf("%d frames, want %d", len(rec.Frames()), tt.frames)
			}
			var got []recorder.ProblemKind
			for _, p := range rec.Problems {
				got = append(got, p.Kind)
			}
			if strings.Join(kinds(got), ",") != strings.Join(kinds(tt.want), ",") {
				t.Fatalf("problems %v, want %v", rec.Problems, tt.want)
			}
			if w := recorder.Warning("x.jsonl", rec.Problems); (w != "") != (len(tt.want) > 0) || strings.Contains(w, "\n") {
				t.Errorf("warning %q", w)
			}
		})
	}
}

func kinds(ks []recorder.ProblemKind) []string {
	var s []string
	for _, k := range ks {
		s = append(s, string(k))
	}
	return s
}

// A message nested deeper than any parser here recurses is read as raw text (as the
// proxy records such a line), with a problem saying so, never a stack overflow.
func TestReaderTooDeep(t *testing.T) {
	for _, depth := range []int{jsonx.MaxDepth - 1, jsonx.MaxDepth + 1, 10_000_000} {
		rec, err := recorder.ReadAll(bytes.NewReader(hostile.DeepArrayRecording(depth)), "deep.jsonl")
		if err != nil {
			t.Fatal(depth, err)
		}
		f := rec.Frames()
		if len(f) != 1 || len(f[0].Line) != 2*depth+len(`{"method":"item/deep","params":}`)+1 {
			t.Fatalf("depth %d: frames %d", depth, len(f))
		}
		tooDeep := depth > jsonx.MaxDepth-1 // the message object adds a level
		if got := f[0].Msg.Kind == wire.KindRaw; got != tooDeep || (len(rec.Problems) == 1) != tooDeep {
			t.Errorf("depth %d: kind %v, problems %v", depth, f[0].Msg.Kind, rec.Problems)
		}
	}
}

// A seq or time out of range makes the line unreadable: skipped, reported naming
// the line, never a wrapped number.
func TestReaderRanges(t *testing.T) {
	for _, bad := range []string{
		`{"type":"frame","seq":1e30,"dir":"c2s","raw":""}`,
		`{"type":"frame","seq":9223372036854775808,"dir":"c2s","raw":""}`,
		`{"type":"frame","seq":-1,"dir":"c2s","raw":""}`,
		`{"type":"frame","seq":1.5,"dir":"c2s","raw":""}`,
		`{"type":"frame","seq":"1","dir":"c2s","raw":""}`,
		`{"type":"frame","seq":1,"t":1e300,"dir":"c2s","raw":""}`,
		`{"type":"frame","seq":1,"t":-3,"dir":"c2s","raw":""}`,
	} {
		rec, err := recorder.ReadAll(strings.NewReader(hdr+bad+"\n"), "x.jsonl")
		if err != nil || len(rec.Entries) != 0 || len(rec.Problems) != 1 || rec.Problems[0].Line != 2 || rec.Problems[0].Kind != recorder.ProblemUnreadable {
			t.Errorf("%s: err = %v, rec %+v", bad, err, rec)
		}
	}
}

// FuzzReader: any input either fails NewReader or reads to the end without a panic,
// and the reader over bytes agrees; a last line cut anywhere is never an error, and
// every entry before it is served.
func FuzzReader(f *testing.F) {
	f.Add(hdr + f1 + f2 + tr)
	f.Add(hdr + f2 + f1 + tr + tr)
	f.Add(hdr + `{"type":"frame","seq":1e400,"t":-0,"dir":"c2s","raw":""}` + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		rec, err := recorder.ReadAll(strings.NewReader(in), "fuzz")
		// The reader over bytes (ReadFile's) refuses and reads what the stream
		// reader does.
		n, merr := -1, error(nil)
		if rd, err := recorder.NewBytesReader([]byte(in), "fuzz"); err != nil {
			merr = err
		} else {
			n = 0
			for _, err := range rd.Entries() {
				if err != nil {
					merr = err
					break
				}
				n++
			}
		}
		if (err == nil) != (merr == nil) || err == nil && n != len(rec.Entries) {
			t.Fatalf("stream reader: %v; bytes reader: %v, %d entries", err, merr, n)
		}
		if err != nil {
			return
		}
		if len(rec.Problems) > 100 {
			t.Fatalf("%d problems kept", len(rec.Problems))
		}
		// The same recording cut inside its last line reads too, with the entries
		// before that line.
		last := strings.LastIndexByte(strings.TrimSuffix(in, "\n"), '\n')
		if last < 0 || last+2 >= len(in) {
			return
		}
		cut := in[:last+2]
		if strings.HasSuffix(cut, "\n") {
			return
		}
		if _, err := recorder.ReadAll(strings.NewReader(cut), "cut"); err != nil {
			t.Fatalf("cut inside the last line: %v", err)
		}
	})
}
