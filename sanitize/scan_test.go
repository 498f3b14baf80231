package sanitize_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

func TestScanFiles(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clean := write("clean.txt", "nothing to see\n")
	leaky := write("leaky.txt", "a line\nkey "+secret+"\n")
	r, err := z.ScanFiles([]string{clean, leaky})
	if err != nil || r.Leaks != 1 || len(r.Files) != 2 || len(r.Files[0].Leaks) != 0 || r.Files[1].Leaks[0].Line != 2 {
		t.Fatalf("ScanFiles = %+v, %v; want one leak on line 2 of the second file", r, err)
	}
	var text, js bytes.Buffer
	if err := r.WriteText(&text); err != nil || !strings.HasPrefix(text.String(), leaky+": ") || strings.Count(text.String(), "\n") != 1 {
		t.Errorf("text %q, %v", text.String(), err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String()+js.String(), secret) {
		t.Error("the secret reached the report")
	}
	var back struct {
		Leaks int
		Files []struct {
			File  string
			Leaks []struct{ Rule, Preview string }
		}
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Leaks != 1 || back.Files[1].Leaks[0].Rule == "" {
		t.Errorf("JSON %s: %v", js.String(), err)
	}
	if _, err := z.ScanFiles([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("a missing file scanned clean")
	}
}
