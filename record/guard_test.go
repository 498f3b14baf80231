package record_test

import (
	"crypto/sha256"
	"encoding/hex"
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

// TestGuardQuarantinesWhatItCannotRedact: a known secret that only the raw line
// shows (it spans two JSON strings, so no string holds it) cannot be redacted where
// it is: the recording is not published but kept, 0600, as NAME.quarantine, and the
// error says where. A second such session does not clobber the first quarantine.
func TestGuardQuarantinesWhatItCannotRedact(t *testing.T) {
	const secret = `token1234","x":"rest5678`
	z, err := sanitize.New(sanitize.Options{Secrets: []sanitize.Secret{{Name: "T", Value: secret}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	for i, want := range []string{path + ".quarantine", path + ".1.quarantine"} {
		s := &record.Session{Guard: z}
		if err := s.Create(path, recorder.Header{}, recorder.Options{}); err != nil {
			t.Fatal(err)
		}
		_, err = s.Serve(nil, echo(t), strings.NewReader(`{"method":"m","params":{"k":"token1234","x":"rest5678"}}`+"\n"), io.Discard)
		var le *sanitize.LeakError
		if !errors.As(err, &le) {
			t.Fatalf("session %d: err = %v, want a *sanitize.LeakError", i, err)
		}
		if le.Quarantine != want || !strings.Contains(err.Error(), want) {
			t.Errorf("session %d: quarantine %q, want %q; error: %v", i, le.Quarantine, want, err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("session %d: published anyway: %v", i, err)
		}
		info, err := os.Stat(want)
		if err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("session %d: quarantine %v, %v: want a 0600 file", i, info, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("files: %v, want the two quarantines only (no temporary left)", ents)
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
