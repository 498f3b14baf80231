package record_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

// TestSanitizeFile: a sanitized copy holds no secret, to a file (0600, not
// replaced without Force) or to a writer; a source cut short is said in the warning.
func TestSanitizeFile(t *testing.T) {
	dir := t.TempDir()
	key := "sk-proj-" + strings.Repeat("Zq7Wx", 20)
	src := filepath.Join(dir, "src.jsonl")
	data := `{"type":"header","format":1,"codexrec":"0.1.0-dev","started":"2026-12-01T10:00:00Z","command":["cat"]}` + "\n" +
		`{"type":"frame","seq":1,"t":0.001,"dir":"c2s","msg":{"id":1,"method":"x","params":{"k":"` + key + `"}}}` + "\n"
	if err := os.WriteFile(src, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	session := func() *record.Session {
		z, err := sanitize.New(sanitize.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return &record.Session{Sanitizer: z, Guard: z}
	}
	dst := filepath.Join(dir, "dst.jsonl")
	warning, err := session().SanitizeFile(src, dst, recorder.Options{})
	if err != nil {
		t.Fatalf("SanitizeFile: %v", err)
	}
	out, err := os.ReadFile(dst)
	if err != nil || strings.Contains(string(out), key) || !strings.Contains(string(out), "<redacted:") {
		t.Fatalf("copy (%v):\n%s", err, out)
	}
	if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o600 {
		t.Errorf("copy's mode %v, want 0600", fi.Mode().Perm())
	}
	torn := filepath.Join(dir, "torn.jsonl")
	if err := os.WriteFile(torn, []byte(data+`{"type":"frame","seq":2,"t":0.0`), 0o600); err != nil {
		t.Fatal(err)
	}
	tornWarning, err := session().SanitizeFile(torn, filepath.Join(dir, "torn-copy.jsonl"), recorder.Options{})
	if err != nil || tornWarning == "" || tornWarning == warning {
		t.Errorf("torn source: warning %q (complete source: %q), %v", tornWarning, warning, err)
	}
	if _, err := session().SanitizeFile(src, dst, recorder.Options{}); !errors.Is(err, recorder.ErrExists) {
		t.Errorf("second copy: %v, want recorder.ErrExists", err)
	}
	var buf bytes.Buffer
	if _, err := session().SanitizeTo(&buf, src); err != nil {
		t.Fatalf("SanitizeTo: %v", err)
	}
	if buf.Len() == 0 || strings.Contains(buf.String(), key) || !strings.HasPrefix(buf.String(), `{"type":"header"`) {
		t.Errorf("SanitizeTo wrote:\n%s", buf.String())
	}
}
