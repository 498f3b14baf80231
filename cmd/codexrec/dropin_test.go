package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/internal/testing/codextest"
)

// cleanEnv is a hermetic codex environment without CI or any CODEXREC_ setting,
// plus extra.
func cleanEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	env, _ := codextest.Env(t)
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "CI=") || strings.HasPrefix(kv, "CODEXREC_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// runEnv runs the built codexrec (or argv0, when it is a shim) with env as a client
// that sends stdin, waits for its first answer (the real codex may exit at EOF before
// answering what came just before it) and then ends its input.
func runEnv(t *testing.T, env []string, stdin []byte, argv0 string, args ...string) result {
	t.Helper()
	if argv0 == "" {
		argv0 = codexrecBin
	}
	cmd := exec.Command(argv0, args...)
	cmd.Env = append(env, "GORACE=atexit_sleep_ms=0")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW := io.Pipe()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = outW, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("running %s %v: %v", argv0, args, err)
	}
	answered := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 64<<10)
		once := false
		for {
			n, err := outR.Read(buf)
			out.Write(buf[:n])
			if !once && bytes.IndexByte(out.Bytes(), '\n') >= 0 {
				once = true
				close(answered)
			}
			if err != nil {
				if !once {
					close(answered)
				}
				return
			}
		}
	}()
	in.Write(stdin)
	done := make(chan error, 1)
	go func() { err := cmd.Wait(); outW.Close(); done <- err }()
	select {
	case <-answered:
	case err = <-done:
		done <- err
	}
	in.Close()
	err = <-done
	<-copied
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %s %v: %v", argv0, args, err)
	}
	return result{out.Bytes(), errb.Bytes(), code}
}

func initializeLine(name string) []byte {
	return []byte(fmt.Sprintf(`{"id":0,"method":"initialize","params":{"clientInfo":{"name":%q,"title":"t","version":"1"}}}`+"\n", name))
}

// TestModes: record, replay, auto and passthrough, with the recording there or not,
// with CI set or not, through `codexrec record --mode` in front of the real codex.
// The client sends initialize and ends. What each did shows in its stderr line, in
// the recording (created, replaced, untouched) and in the exit status.
func TestModes(t *testing.T) {
	real := codextest.Binary(t, codexbin.Newest)
	base := filepath.Join(t.TempDir(), "base.jsonl")
	if r := runEnv(t, cleanEnv(t), initializeLine("modes"), "", "record", "-o", base, "--", real, "app-server"); r.code != 0 {
		t.Fatalf("recording the base session: exit %d\n%s", r.code, r.stderr)
	}
	baseBytes, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	const (
		recorded = "record"
		replayed = "replay"
		passed   = "passthrough"
		refused  = "refused"
	)
	for _, tc := range []struct {
		mode       string
		exists, ci bool
		want       string
	}{
		{"record", false, false, recorded}, {"record", true, false, recorded},
		{"record", false, true, recorded}, {"record", true, true, recorded},
		{"replay", false, false, refused}, {"replay", true, false, replayed},
		{"replay", false, true, refused}, {"replay", true, true, replayed},
		{"auto", false, false, recorded}, {"auto", true, false, replayed},
		{"auto", false, true, refused}, {"auto", true, true, replayed},
		{"passthrough", false, false, passed}, {"passthrough", true, false, passed},
		{"passthrough", false, true, passed}, {"passthrough", true, true, passed},
	} {
		t.Run(fmt.Sprintf("%s/exists=%v/ci=%v", tc.mode, tc.exists, tc.ci), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "session.jsonl")
			if tc.exists {
				if err := os.WriteFile(file, baseBytes, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var env []string
			if tc.ci {
				env = cleanEnv(t, "CI=true")
			} else {
				env = cleanEnv(t)
			}
			r := runEnv(t, env, initializeLine("modes"), "", "record", "--mode", tc.mode, "-o", file, "--", real, "app-server")
			after, readErr := os.ReadFile(file)
			switch tc.want {
			case refused:
				if r.code != 2 || !bytes.Contains(r.stderr, []byte("no recording "+file)) {
					t.Fatalf("exit %d, want 2 naming the missing recording; stderr:\n%s", r.code, r.stderr)
				}
				if tc.ci && tc.mode == "auto" && !bytes.Contains(r.stderr, []byte("CI is set")) {
					t.Errorf("stderr does not say CI is why:\n%s", r.stderr)
				}
				if readErr == nil {
					t.Error("a refused session left a recording")
				}
				return
			case passed:
				if bytes.Contains(r.stderr, []byte("codexrec: mode")) {
					t.Errorf("passthrough went through codexrec:\n%s", r.stderr)
				}
				if tc.exists != (readErr == nil) || tc.exists && !bytes.Equal(after, baseBytes) {
					t.Error("passthrough touched the recording")
				}
			default:
				if line := "codexrec: mode " + tc.mode + ": " + tc.want + " " + file; !bytes.Contains(r.stderr, []byte(line)) {
					t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
				}
				switch {
				case readErr != nil:
					t.Fatalf("no recording after %s: %v", tc.want, readErr)
				case tc.want == replayed && !bytes.Equal(after, baseBytes):
					t.Error("replay changed the recording")
				case tc.want == recorded && bytes.Equal(after, baseBytes):
					t.Error("record kept the former recording")
				}
			}
			if r.code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
			}
			if !bytes.Contains(r.stdout, []byte(`"userAgent":"modes/`)) {
				t.Errorf("the client got no initialize answer naming it: %s", r.stdout)
			}
		})
	}
}

// TestNamedRunRecordThenReplay: a run of three sessions recorded into a directory
// (`record -o DIR/`) is replayed by another run of the same three: each session finds
// its own recording (strict matching tells them apart by clientInfo), and
// CODEXREC_NAME names a session after its test.
func TestNamedRunRecordThenReplay(t *testing.T) {
	real := codextest.Binary(t, codexbin.Newest)
	dir := filepath.Join(t.TempDir(), "recordings") + "/"
	sessions := []string{"first-client", "second-client", "third-client"}
	for _, name := range sessions {
		r := runEnv(t, cleanEnv(t, "CODEXREC_RUN=recording-run"), initializeLine(name), "", "record", "-o", dir, "--", real, "app-server")
		if r.code != 0 {
			t.Fatalf("recording %s: exit %d\n%s", name, r.code, r.stderr)
		}
	}
	for i, name := range sessions {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("%03d-initialize.jsonl", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"name":"`+name+`"`)) {
			t.Errorf("session %d's recording is not %s's", i+1, name)
		}
	}
	for _, name := range sessions {
		r := runEnv(t, cleanEnv(t, "CODEXREC_RUN=replaying-run", "CI=true"), initializeLine(name), "", "replay", "--match", "strict", dir)
		if r.code != 0 {
			t.Fatalf("replaying %s: exit %d\n%s", name, r.code, r.stderr)
		}
		if !bytes.Contains(r.stdout, []byte(`"userAgent":"`+name+`/`)) {
			t.Errorf("%s got another session's answer: %s", name, r.stdout)
		}
	}

	for _, want := range []string{"TestTurn_approval.jsonl", "TestTurn_approval-2.jsonl"} {
		r := runEnv(t, cleanEnv(t, "CODEXREC_RUN=named", "CODEXREC_NAME=TestTurn/approval"), initializeLine("named"), "", "record", "-o", dir, "--", real, "app-server")
		if r.code != 0 || !bytes.Contains(r.stderr, []byte(filepath.Join(dir, want))) {
			t.Errorf("CODEXREC_NAME: exit %d, want a recording %s; stderr:\n%s", r.code, want, r.stderr)
		}
	}
}
