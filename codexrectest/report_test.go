package codexrectest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/shim"
)

// recordingTB keeps what Shim reports instead of failing the test.
type recordingTB struct {
	testing.TB
	errors, logs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// TestShimReportsFailure: a session the replay refuses (a missing recording in replay
// mode) fails the test that made the shim, with the reason; the test that made it
// sees this when it ends.
func TestShimReportsFailure(t *testing.T) {
	r := &recordingTB{TB: t}
	missing := filepath.Join(t.TempDir(), "none.jsonl")
	t.Cleanup(func() {
		if len(r.errors) != 1 || !strings.Contains(r.errors[0], "no recording "+missing) {
			t.Errorf("errors %q, want one naming the missing recording", r.errors)
		}
	})
	codex := Shim(r, missing, shim.ModeReplay)
	cmd := exec.Command(codex, "app-server")
	cmd.Stdin = strings.NewReader(`{"id":1,"method":"initialize","params":{}}` + "\n")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err == nil {
		t.Error("the shim replayed a recording that does not exist")
	}
}
