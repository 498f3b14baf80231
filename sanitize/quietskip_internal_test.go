package sanitize

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	corpus "github.com/codexrec/codexrec/internal/testing/secretcorpus"
)

// quietSkipSessions are sessions of frames (each line with its direction) from the
// committed fixtures, the secret corpus (every secret in every placement, near
// misses) and the generated corpus, each to be sanitized on its own.
func quietSkipSessions(t *testing.T) [][]corpus.Frame {
	t.Helper()
	var sessions [][]corpus.Frame
	files, err := filepath.Glob("../fixtures/hermetic/*/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s []corpus.Frame
		for _, l := range bytes.Split(data, []byte("\n")) {
			r := gjson.ParseBytes(l)
			if r.Get("type").Str != "frame" {
				continue
			}
			if m := r.Get("msg"); m.Exists() {
				s = append(s, corpus.Frame{Dir: r.Get("dir").Str, Line: m.Raw})
			} else if raw := r.Get("raw"); raw.Exists() {
				s = append(s, corpus.Frame{Dir: "stderr", Line: raw.Str})
			}
		}
		sessions = append(sessions, s)
	}
	// The fixtures again, with a known secret at the start of string values and
	// their mapped paths spelled out: found only by the searches of find (no rule's
	// literal is near).
	for _, fixture := range sessions[:len(files)] {
		var s []corpus.Frame
		for i, f := range fixture {
			line := strings.ReplaceAll(f.Line, "<cwd>", "/home/ann/ws")
			if i%3 == 0 {
				line = strings.ReplaceAll(line, `":"`, `":"`+quietSecret+` `)
			}
			s = append(s, corpus.Frame{Dir: f.Dir, Line: line})
		}
		sessions = append(sessions, s)
	}
	for _, c := range append(corpus.Cases(), corpus.NegativeCases()...) {
		var s []corpus.Frame
		for _, l := range c.Lines {
			dir := "s2c"
			if !gjson.Valid(l) {
				dir = "stderr"
			}
			s = append(s, corpus.Frame{Dir: dir, Line: l})
		}
		sessions = append(sessions, s)
	}
	for _, c := range corpus.GenCases(corpus.CommittedKeys()) {
		sessions = append(sessions, c.Frames)
	}
	// Each secret on one line of a string with no escape (where only find and
	// base64Spans read it): after its variable and a keyword, after its provider's
	// name, percent-encoded, and in base64.
	for _, sec := range corpus.Secrets() {
		if strings.ContainsFunc(sec.Value, func(r rune) bool { return r < 0x20 || r >= 0x7f || r == '"' || r == '\\' }) {
			continue
		}
		var pct strings.Builder
		for i := 0; i < len(sec.Value); i++ {
			fmt.Fprintf(&pct, "%%%02X", sec.Value[i])
		}
		var s []corpus.Frame
		for _, text := range []string{
			"export " + sec.Env + "=" + sec.Value + " done",
			"the password: " + sec.Value,
			"api_key = " + sec.Value,
			sec.Provider + " token " + sec.Value,
			"query x=%2F&q=" + pct.String(),
			"blob " + base64.StdEncoding.EncodeToString([]byte(sec.Env+"="+sec.Value)) + " end",
		} {
			s = append(s, corpus.Frame{Dir: "s2c", Line: `{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"m","text":"` + text + `"}}}`})
		}
		sessions = append(sessions, s)
	}
	// A keyword's value and a known secret, in base64 and percent-encoded, that no
	// rule's literal announces.
	var s []corpus.Frame
	for _, text := range []string{"blob " + base64.StdEncoding.EncodeToString([]byte("the key is "+quietSecret)), "the password: Zx9qLr2vTb7mWc4kP3 ok", "secret=Qw7ErT5yUi3oPa1sDf9g", "query q=%66%61%6B%65%2D%61%63%63%65%73%73%2D%74%6F%6B%65%6E%2D%31%32%33%34%35"} {
		s = append(s, corpus.Frame{Dir: "s2c", Line: `{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"m","text":"` + text + `"}}}`})
	}
	return append(sessions, s)
}

// quietSecret is a known secret no rule detects.
const quietSecret = "fake-access-token-12345"

// sanitizeSessions sanitizes every session as record does (a delta knowing the next
// frame of its direction) and returns each frame's output and redactions, printed.
func sanitizeSessions(t *testing.T, z *Sanitizer, sessions [][]corpus.Frame) []string {
	t.Helper()
	var out []string
	for _, s := range sessions {
		z.ForgetStreams()
		for i, f := range s {
			var got []byte
			var reds []Redaction
			if f.Dir == "stderr" {
				got, reds = z.FrameClassified([]byte(f.Line+"\n"), false)
			} else {
				var next []byte
				for _, g := range s[i+1:] {
					if g.Dir == f.Dir {
						next = []byte(g.Line)
						break
					}
				}
				got, reds = z.FrameFollowedBy([]byte(f.Line+"\n"), true, next)
			}
			out = append(out, fmt.Sprintf("%s %v", got, reds))
		}
	}
	return out
}

// TestQuietSkipChangesNothing: skipping the searches of a string where the line's
// prefilter saw nothing (filter.quietIn) changes no frame and no redaction, for the
// sanitizer and the guard's, with and without known secrets and path maps, over the
// fixtures and both secret corpora; the skip is taken there (it is no dead code).
func TestQuietSkipChangesNothing(t *testing.T) {
	sessions := quietSkipSessions(t)
	secrets := []Secret{{Name: "QUIET", Value: quietSecret}}
	for _, s := range corpus.Secrets()[:8] {
		if len(s.Value) >= MinSecretLen {
			secrets = append(secrets, Secret{Name: s.Provider, Value: s.Value})
		}
	}
	for _, opts := range []Options{
		{Salt: "quiet"},
		{Salt: "quiet", Secrets: secrets, Maps: []Map{{From: "/tmp", To: "<tmp>"}, {From: "/home/ann", To: "<home>"}}},
	} {
		for _, guard := range []bool{false, true} {
			run := func(skip bool) []string {
				defer func(old bool) { quietSkip = old }(quietSkip)
				quietSkip = skip
				z, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				if guard {
					z = z.guardSanitizer()
				}
				return sanitizeSessions(t, z, sessions)
			}
			with, without := run(true), run(false)
			if len(with) != len(without) {
				t.Fatalf("%d frames with the skip, %d without", len(with), len(without))
			}
			for i := range with {
				if with[i] != without[i] {
					t.Fatalf("frame %d differs (guard %v, %d secrets):\nwith the skip:    %.600s\nwithout the skip: %.600s", i, guard, len(opts.Secrets), with[i], without[i])
				}
			}
			if slices.Equal(with, sanitizeSessionsUnsanitized(sessions)) {
				t.Fatal("nothing was redacted: the corpora hold secrets")
			}
		}
	}
}

// sanitizeSessionsUnsanitized is what sanitizeSessions prints for frames left as they
// were.
func sanitizeSessionsUnsanitized(sessions [][]corpus.Frame) []string {
	var out []string
	for _, s := range sessions {
		for _, f := range s {
			out = append(out, fmt.Sprintf("%s %v", f.Line+"\n", []Redaction(nil)))
		}
	}
	return out
}

// TestDeltaRawCheckChangesNothing: deltaRaw, which reads no further a line without
// `"delta`, says what the parse says of every frame of the fixtures and the
// corpora, and of each as a recording's frame entry.
func TestDeltaRawCheckChangesNothing(t *testing.T) {
	found := 0
	for _, s := range quietSkipSessions(t) {
		for _, f := range s {
			for _, line := range []string{f.Line, `{"type":"frame","seq":1,"dir":"s2c","msg":` + f.Line + `}`} {
				s1, r1, b1, ok1 := deltaRaw([]byte(line))
				s2, r2, b2, ok2 := parseDelta([]byte(line))
				if s1 != s2 || string(r1) != string(r2) || b1 != b2 || ok1 != ok2 {
					t.Fatalf("%.300s: deltaRaw %q %v %v, the parse %q %v %v", line, s1, b1, ok1, s2, b2, ok2)
				}
				if ok1 {
					found++
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no delta among the frames")
	}
}
