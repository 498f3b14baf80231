package record_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/schema"
)

// TestGuardRedactsWhatItCannotLocate: a known secret that only the raw line shows
// (it spans two JSON strings, so no string holds it) cannot be redacted at a span of
// its own: every string value of that frame is redacted whole, the finding says so,
// and the recording is still published (a *sanitize.RedactedError), with no
// quarantine and no temporary file left. The same with the sanitizer on, whose
// walk of the strings cannot see it either (the guard's scan of each message as it
// is written does).
func TestGuardRedactsWhatItCannotLocate(t *testing.T) {
	for _, sanitizing := range []bool{false, true} {
		t.Run(map[bool]string{false: "guard", true: "sanitizer"}[sanitizing], func(t *testing.T) {
			testGuardRedactsWhatItCannotLocate(t, sanitizing)
		})
	}
}

func testGuardRedactsWhatItCannotLocate(t *testing.T, sanitizing bool) {
	const secret = `token1234","x":"rest5678`
	z, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "T", Value: secret}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	s := &record.Session{Guard: z}
	if sanitizing {
		s.Sanitizer = z
	}
	if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = s.Serve(nil, echo(t), strings.NewReader(`{"method":"m","params":{"k":"token1234","x":"rest5678"}}`+"\n"), io.Discard)
	var re *sanitize.RedactedError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a *sanitize.RedactedError", err)
	}
	whole := 0
	for _, l := range re.Leaks {
		if l.Whole {
			whole++
		}
	}
	if whole == 0 || !strings.Contains(err.Error(), "not located") {
		t.Errorf("no finding says its frame was redacted whole: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("not published: %v", err)
	}
	if strings.Contains(string(data), "token1234") || strings.Contains(string(data), "rest5678") {
		t.Errorf("the secret's parts survive:\n%s", data)
	}
	if !strings.Contains(string(data), `"type":"frame"`) || !strings.Contains(string(data), "<redacted:guard-unlocated:") {
		t.Errorf("the frame is not kept with its strings redacted:\n%s", data)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("recording %v, %v: want a 0600 file", info, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files: %v, want the recording only (no quarantine, no temporary)", ents)
	}
}

// TestSanitizerLeavesGuardNothing: what the guard checks, the sanitizer redacts: the
// SHA-256 hex of a known secret, the secret used as a request's id and method (copied
// into findings and redaction entries) and as an object key (in pointers). The
// recording is published clean, with no guard finding.
func TestSanitizerLeavesGuardNothing(t *testing.T) {
	const secret = "s3cr3t-Value-0123456789"
	sum := sha256.Sum256([]byte(secret))
	z, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "S", Value: secret}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := &record.Session{Sanitizer: z, Guard: z, Validator: &schema.SessionValidator{Classified: true}}
	if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	in := `{"id":"` + secret + `","method":"` + secret + `","params":{"digest":"` + hex.EncodeToString(sum[:]) + `"}}` + "\n" +
		`{"method":"x","params":{"` + secret + `":{"token":"sk-proj-abcdefghij0123456789ABCDEFGHIJ"}}}` + "\n"
	if _, err := s.Serve(nil, echo(t), strings.NewReader(in), io.Discard); err != nil {
		t.Fatalf("the guard had something to do: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{secret, hex.EncodeToString(sum[:])[:20], "sk-proj-abcdefghij"} {
		if strings.Contains(string(data), v) {
			t.Errorf("the recording holds %q:\n%s", v[:8], data)
		}
	}
	if !strings.Contains(string(data), `"type":"finding"`) || !strings.Contains(string(data), `"type":"redaction"`) {
		t.Errorf("the session made no findings or redactions to check:\n%s", data)
	}
}

// TestGuardChecksWhatTheSanitizerDidNotWrite: with the sanitizer as its guard, the
// follower trusts the frames' messages only: an entry written past the sanitizer
// holding a secret is still redacted by the guard before publishing.
func TestGuardChecksWhatTheSanitizerDidNotWrite(t *testing.T) {
	const key = "sk-proj-abcdefghij0123456789ABCDEFGHIJ"
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s := &record.Session{Sanitizer: z, Guard: z}
	if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	in := `{"method":"x","params":{"token":"` + key + `"}}` + "\n"
	if _, err := s.Serve(nil, echo(t), strings.NewReader(in), io.Discard); err != nil {
		t.Fatalf("the sanitizer left the guard something: %v", err)
	}
	path2 := filepath.Join(t.TempDir(), "s2.jsonl")
	s2 := &record.Session{Sanitizer: z, Guard: z}
	if err := s2.Create(path2, recorder.Header{}, recorder.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Writer.WriteEntry(recorder.Entry{Type: recorder.TypeFinding, Seq: 1, Rule: "r", Reason: "quoted " + key}); err != nil {
		t.Fatal(err)
	}
	_, err = s2.Finish(recorder.Trailer{Ended: recorder.EndChildExit})
	var re *sanitize.RedactedError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a *sanitize.RedactedError", err)
	}
	for _, p := range []string{path, path2} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), key[:16]) {
			t.Errorf("%s holds the key:\n%s", filepath.Base(p), data)
		}
	}
}

// TestGuardKnownSecretAsNumber: a known secret that a message holds as a number
// (no string holds it) is redacted, the number becoming the placeholder string: by
// the sanitizer when it is on (a redaction entry, no guard finding), else by the
// guard (a *sanitize.RedactedError). The recording is published, 0600, valid JSON
// Lines, with no trace of the secret and its other numbers (the entries' seq and t,
// the message's id and other numbers) kept. (The echoing server answers the
// request: its response is the second frame.)
func TestGuardKnownSecretAsNumber(t *testing.T) {
	const secret = "98765432109876543"
	for _, sanitizing := range []bool{false, true} {
		z, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "N", Value: secret}}})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "s.jsonl")
		s := &record.Session{Guard: z}
		if sanitizing {
			s.Sanitizer = z
		}
		if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
			t.Fatal(err)
		}
		_, err = s.Serve(nil, echo(t), strings.NewReader(`{"id":7,"method":"m","params":{"account":`+secret+`,"n":[1,-2.5e3]}}`+"\n"), io.Discard)
		var re *sanitize.RedactedError
		if sanitizing && err != nil || !sanitizing && !errors.As(err, &re) {
			t.Fatalf("sanitizing %v: err = %v, want %s", sanitizing, err, map[bool]string{false: "a *sanitize.RedactedError", true: "nil"}[sanitizing])
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("sanitizing %v: the error shows the secret: %v", sanitizing, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("sanitizing %v: not published: %v", sanitizing, err)
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("sanitizing %v: recording %v, %v: want a 0600 file", sanitizing, info, err)
		}
		if strings.Contains(string(data), secret) || strings.Contains(string(data), secret[:9]) {
			t.Errorf("sanitizing %v: the secret survives:\n%s", sanitizing, data)
		}
		frames := 0
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var e struct {
				Type string
				Seq  int
				Msg  struct {
					ID     int
					Params struct {
						Account string
						N       []float64
					}
				}
			}
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("sanitizing %v: not JSON: %v\n%s", sanitizing, err, l)
			}
			if e.Type != "frame" {
				continue
			}
			frames++
			if e.Seq != frames || e.Msg.ID != 7 {
				t.Errorf("sanitizing %v: frame %s", sanitizing, l)
			}
			if e.Seq == 1 && (!strings.Contains(e.Msg.Params.Account, "<redacted:known-secret:") || len(e.Msg.Params.N) != 2 || e.Msg.Params.N[1] != -2500) {
				t.Errorf("sanitizing %v: frame %s", sanitizing, l)
			}
		}
		if frames != 2 {
			t.Errorf("sanitizing %v: %d frames, want 2:\n%s", sanitizing, frames, data)
		}
		if sanitizing && !strings.Contains(string(data), `"type":"redaction","seq":1`) {
			t.Errorf("sanitizing %v: no redaction entry:\n%s", sanitizing, data)
		}
	}
}
