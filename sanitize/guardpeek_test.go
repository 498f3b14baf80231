package sanitize_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/sanitize"
)

// frameEntry is a delta as a recording holds it.
func frameEntry(seq, item, text string) string {
	return `{"type":"frame","seq":` + seq + `,"t":0.1,"dir":"s2c","kind":"notification","method":"item/commandExecution/outputDelta","msg":{"method":"item/commandExecution/outputDelta","params":{"threadId":"t","itemId":"` + item + `","delta":` + q(text) + `}}}`
}

// TestLookaheadPrefixAgrees: wherever a recording's delta line is cut, its start
// either tells nothing or gives what the whole line gives.
func TestLookaheadPrefixAgrees(t *testing.T) {
	line := []byte(frameEntry("7", "call_1", strings.Repeat("a\tb \"c\" \\d \u00e9\n", 400)))
	want := string(sanitize.Lookahead(line))
	told := 0
	for k := 0; k < len(line); k++ {
		if got, ok := sanitize.LookaheadPrefix(line[:k]); ok {
			told++
			if string(got) != want {
				t.Fatalf("cut at %d: %q, want %q", k, got, want)
			}
		}
	}
	if told == 0 {
		t.Fatal("no start of the line told its lookahead")
	}
	for _, l := range []string{
		`{"type":"frame","msg":{"method":"command/exec/outputDelta","params":{"processId":"p","stream":"stdout","deltaBase64":"` + strings.Repeat("QUJD", 4000),
		`{"type":"frame","msg":{"params":{"delta":"` + strings.Repeat("x", 8000),
		`{"type":"frame","msg":{"params":{"itemId":"i","delta":"short`,
	} {
		if _, ok := sanitize.LookaheadPrefix([]byte(l)); ok {
			t.Errorf("the start of %.60q told a lookahead it cannot know", l)
		}
	}
}

// TestGuardHugeDeltasCut: the guard reads only the start of the frame after a delta;
// a secret cut between two deltas of several megabytes each is still found, both
// pieces.
func TestGuardHugeDeltasCut(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "peek"})
	if err != nil {
		t.Fatal(err)
	}
	secret := providerSecret(t, "github-classic")
	filler := strings.Repeat("ok  \tgithub.com/example/project\t0.042s\n", 3<<20/40)
	cut := len(secret) / 2
	file := filepath.Join(t.TempDir(), "r.jsonl")
	rec := `{"type":"header","format":1}` + "\n" +
		frameEntry("1", "call_1", filler+"token: "+secret[:cut]) + "\n" +
		`{"type":"finding","seq":1,"rule":"unknown-method"}` + "\n" +
		frameEntry("2", "call_1", secret[cut:]+"\n"+filler) + "\n" +
		`{"type":"trailer"}` + "\n"
	if err := os.WriteFile(file, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	err = z.Guard(file)
	var le *sanitize.LeakError
	if !errors.As(err, &le) || len(le.Leaks) == 0 {
		t.Fatalf("the guard missed a secret cut between two huge deltas: %v", err)
	}
	seqs := map[int64]bool{}
	for _, l := range le.Leaks {
		seqs[l.Seq] = true
	}
	if len(seqs) != 2 || !seqs[1] || !seqs[2] {
		t.Errorf("findings at seqs %v, want each delta's piece (1 and 2)", seqs)
	}
}

// TestGuardRedactInPlace: when the guard must redact, the file is rewritten in place
// (the same file, whose lock a writer holds, with its mode), the secret's line
// changes and every other line, a huge clean delta included, stays byte for byte.
func TestGuardRedactInPlace(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "inplace"})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	huge := frameEntry("1", "call_1", strings.Repeat("ok  \tgithub.com/example/project\t0.042s\n", 2<<20/40))
	lines := []string{`{"type":"header","format":1}`, huge,
		`{"type":"frame","seq":2,"dir":"c2s","msg":{"method":"x","params":{"note":"` + secret + `"}}}`,
		`{"type":"trailer"}`}
	file := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	redacted, err := z.GuardRedact(file)
	if err != nil || len(redacted) != 1 || redacted[0].Seq != 2 || redacted[0].Line != 3 {
		t.Fatalf("GuardRedact: %v, %v: want one redaction, seq 2 on line 3", redacted, err)
	}
	after, err := os.Stat(file)
	if err != nil || !os.SameFile(before, after) || after.Mode().Perm() != 0o640 {
		t.Fatalf("the file was replaced (same %v, mode %v, %v)", os.SameFile(before, after), after.Mode(), err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(got) != len(lines) || strings.Contains(string(b), secret) {
		t.Fatalf("%d lines after redacting (want %d), secret still there: %v", len(got), len(lines), strings.Contains(string(b), secret))
	}
	for i, l := range lines {
		if (got[i] == l) != (i != 2) {
			t.Errorf("line %d changed: %v, want only line 3 to", i+1, got[i] != l)
		}
	}
}

// TestGuardRedactReadOnlyClean: a clean recording is only read, so a read-only one
// passes the guard.
func TestGuardRedactReadOnlyClean(t *testing.T) {
	z, err := sanitize.New(sanitize.Options{Salt: "ro"})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "r.jsonl")
	rec := `{"type":"header","format":1}` + "\n" + frameEntry("1", "call_1", "ok\n") + "\n" + `{"type":"trailer"}` + "\n"
	if err := os.WriteFile(file, []byte(rec), 0o400); err != nil {
		t.Fatal(err)
	}
	if redacted, err := z.GuardRedact(file); err != nil || len(redacted) > 0 {
		t.Fatalf("GuardRedact on a clean read-only recording: %v, %d redacted", err, len(redacted))
	}
}
