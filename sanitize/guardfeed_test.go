package sanitize_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

// TestGuardFeedAgreesWithGuard: fed a recording's lines as they are written, in
// pieces of every size, the feed calls a file clean exactly when the guard reading the
// finished file finds nothing: a secret whole in one frame, cut between two deltas
// with an annotation between them, in an annotation, in the last line without its
// newline, and real recordings with nothing to find.
func TestGuardFeedAgreesWithGuard(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "feed"})
	if err != nil {
		t.Fatal(err)
	}
	secret := providerSecret(t, "github-classic")
	cut := len(secret) / 2
	header := `{"type":"header","format":1}` + "\n"
	files := map[string]string{
		"whole": header + frameEntry("1", "call_1", "token: "+secret+"\n") + "\n" + `{"type":"trailer"}` + "\n",
		"cut": header + frameEntry("1", "call_1", "token: "+secret[:cut]) + "\n" +
			`{"type":"finding","seq":1,"rule":"unknown-method"}` + "\n" +
			frameEntry("2", "call_1", secret[cut:]+"\n") + "\n" + `{"type":"trailer"}` + "\n",
		"cut-clean": header + frameEntry("1", "call_1", "ok: ghp_") + "\n" +
			frameEntry("2", "call_1", "then\n") + "\n" + `{"type":"trailer"}` + "\n",
		"annotation":  header + `{"type":"finding","seq":1,"rule":"x","reason":"` + secret + `"}` + "\n",
		"last-delta":  header + frameEntry("1", "call_1", "token: "+secret[:cut]) + "\n" + frameEntry("2", "call_1", secret[cut:]),
		"no-newline":  header + `{"type":"trailer","error":"` + secret + `"}`,
		"clean-delta": header + frameEntry("1", "call_1", strings.Repeat("fine output\n", 5000)) + "\n",
	}
	fixtures, _ := filepath.Glob("../fixtures/hermetic/0.171.0/*.jsonl")
	if len(fixtures) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range fixtures[:min(len(fixtures), 6)] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(f)] = string(b)
	}
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		guardClean := z.Guard(path) == nil
		feed := z.NewGuardFeed()
		for _, l := range strings.SplitAfter(content, "\n") {
			if l != "" {
				feed.Line([]byte(l))
			}
		}
		if got := feed.Clean(); got != guardClean {
			t.Errorf("%s: feed clean %v, guard clean %v", name, got, guardClean)
		}
		if strings.Contains(content, secret[:cut]) && guardClean {
			t.Errorf("%s: the guard itself found nothing", name)
		}
	}
}
