package sanitize_test

import (
	"os"
	"path/filepath"
	"strconv"
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

// TestScanFindsAfterFeed: the scan of a line a scanned feed checked first (whose
// automaton hits the feed leaves behind for a long line) finds exactly what a
// scan of its own finds, for long lines with and without secrets, lines fed in
// batches as the recorder's follower feeds them, and a line changed after it was
// fed (its hits must not be used).
func TestScanFindsAfterFeed(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "feed"})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := sanitize.New(sanitize.Options{Salt: "feed"})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat(`ok  \tgithub.com/example/pkg000\t0.000s\tcoverage: 0.0% of statements\n`, 400)
	secret := "ghp_" + "Ab3xZq9Lm2Pw7Rt5Yk1Hn8Dc4Fg6Js0Va3X"
	frame := func(seq int, delta string) []byte {
		return []byte(`{"type":"frame","seq":` + strconv.Itoa(seq) + `,"dir":"s2c","kind":"notification","method":"item/commandExecution/outputDelta","msg":{"method":"item/commandExecution/outputDelta","params":{"itemId":"call_1","delta":"` + delta + `"}}}` + "\n")
	}
	// Clean lines first (a feed stops checking at its first finding), then lines
	// holding the token.
	lines := [][]byte{
		frame(1, long),
		frame(2, long+"x"),
		frame(3, "y"+long),
		frame(4, long),
		frame(5, "short"),
		frame(6, long+"z"),
		frame(7, long+secret),
		frame(8, secret+long),
		frame(9, long[:len(long)/2]+secret+long[len(long)/2:]),
	}
	feed := z.NewGuardFeedScanned()
	for i := 0; i < len(lines); i += 3 {
		batch := lines[i:min(len(lines), i+3)]
		for _, l := range batch {
			feed.Line(l)
		}
		for k, l := range batch {
			if i+k == 3 {
				// Changed after it was fed: the scan must read it anew.
				l = frame(4, long[:100]+secret+long[100+len(secret):])
			}
			if got, want := z.ScanFinds(l), fresh.ScanFinds(l); got != want {
				t.Errorf("line %d: ScanFinds after the feed %v, alone %v", i+k+1, got, want)
			}
		}
	}
	if feed.Clean() {
		t.Error("the feed found nothing in lines holding a token")
	}
}
