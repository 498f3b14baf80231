package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordRedactsSecretNumber: a secret variable's value that a message carries as
// a JSON number (an account number, say) is redacted by the built binary in both
// record modes, never published as it is and never withheld: with the defaults the
// sanitizer redacts it (exit 0), with --no-sanitize the guard does (exit 3); the
// recording is published, with no trace of the value in it or on stderr.
func TestRecordRedactsSecretNumber(t *testing.T) {
	const secret = "98765432109876543"
	dir := t.TempDir()
	for _, mode := range []struct {
		name string
		args []string
		code int
	}{{"defaults", nil, 0}, {"guard-alone", []string{"--no-sanitize"}, 3}} {
		out := filepath.Join(dir, mode.name+".jsonl")
		args := append(append([]string{"record", "--secret-env", "ACCOUNT_NUMBER"}, mode.args...), "-o", out, "--", "sh", "-c", "cat >/dev/null")
		cmd := exec.Command(codexrecBin, args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "ACCOUNT_NUMBER="+secret)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","method":"account/set","params":{"number":` + secret + `,"other":42}}` + "\n")
		stderr, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != mode.code {
			t.Errorf("%s: exit %d, want %d; output:\n%s", mode.name, code, mode.code, stderr)
		}
		if strings.Contains(string(stderr), secret) {
			t.Errorf("%s: output shows the secret:\n%s", mode.name, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("%s: not published: %v", mode.name, err)
		}
		if strings.Contains(string(data), secret) || !strings.Contains(string(data), `"other":42`) || !strings.Contains(string(data), `"number":"<redacted:known-secret:`) {
			t.Errorf("%s: recording:\n%s", mode.name, data)
		}
	}
}
