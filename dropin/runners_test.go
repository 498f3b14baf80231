package dropin_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/shim"
)

// TestRecordThenReplay: the stdio runners record a real child (cat, an echo server:
// its answers are the client's lines) and replay what they recorded; a changed
// client message is a mismatch.
func TestRecordThenReplay(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "echo.jsonl")
	in := `{"id":1,"method":"echo/first","params":{"n":1}}` + "\n" + `{"id":2,"method":"echo/second","params":{"n":1}}` + "\n"
	var out, stderr bytes.Buffer
	var reports int
	rec := &dropin.RecordOptions{Stages: record.Defaults{NoValidate: true}, Version: "test", Stdout: &out, Stderr: &stderr,
		Report: func(conn int, r record.Report) error { reports++; return nil }}
	if err := rec.Record(context.Background(), path, []string{"cat"}, strings.NewReader(in)); err != nil {
		t.Fatalf("Record: %v (stderr %s)", err, stderr.String())
	}
	if out.String() != in || reports != 1 {
		t.Fatalf("client got %q, %d reports; want the echo and 1", out.String(), reports)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("recording: %v %v", fi, err)
	}
	if err := rec.Record(context.Background(), path, []string{"cat"}, strings.NewReader(in)); !errors.Is(err, recorder.ErrExists) {
		t.Errorf("second Record: %v, want recorder.ErrExists", err)
	}

	rep := &dropin.ReplayOptions{Server: &replay.Server{}}
	var served bytes.Buffer
	rep.Stdout = &served
	if err := rep.Replay(context.Background(), path, strings.NewReader(in)); err != nil || served.String() != in {
		t.Fatalf("Replay: %v, served %q", err, served.String())
	}
	served.Reset()
	changed := strings.Replace(in, `"n":1`, `"n":2`, 1)
	if err := rep.Replay(context.Background(), path, strings.NewReader(changed)); !errors.Is(err, replay.ErrNoMatch) {
		t.Errorf("Replay of a changed client: %v, want replay.ErrNoMatch", err)
	}
}

// TestRecordFailures: a command that cannot start leaves no recording; a server
// that exits non-zero is an *ExitError with its code; a bad stage setting is a
// *StagesError before anything runs.
func TestRecordFailures(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	rec := &dropin.RecordOptions{Stages: record.Defaults{NoValidate: true}, Stdout: &out, Stderr: &out}
	missing := filepath.Join(dir, "missing.jsonl")
	err := rec.Record(context.Background(), missing, []string{filepath.Join(dir, "no-such-codex")}, strings.NewReader(""))
	if !errors.Is(err, proxy.ErrStart) {
		t.Errorf("missing command: %v, want proxy.ErrStart", err)
	}
	if _, statErr := os.Stat(missing); statErr == nil {
		t.Error("a failed start left a recording")
	}
	err = rec.Record(context.Background(), filepath.Join(dir, "exit.jsonl"), []string{"sh", "-c", "exit 3"}, strings.NewReader(""))
	var xe *dropin.ExitError
	if !errors.As(err, &xe) || xe.Code != 3 {
		t.Errorf("exit 3: %v, want an *ExitError with code 3", err)
	}
	bad := &dropin.RecordOptions{Stages: record.Defaults{Sanitize: sanitize.Config{SecretFiles: []string{filepath.Join(dir, "no-such-secrets")}}}, Stdout: &out, Stderr: &out}
	var se *dropin.StagesError
	if err := bad.Record(context.Background(), filepath.Join(dir, "bad.jsonl"), []string{"cat"}, strings.NewReader("")); !errors.As(err, &se) {
		t.Errorf("bad setting: %v, want a *StagesError", err)
	}
}

// TestUseRunnersDecides: a session in mode auto records once (no recording yet),
// then replays what it recorded.
func TestUseRunnersDecides(t *testing.T) {
	path := filepath.Join(t.TempDir(), "auto.jsonl")
	in := `{"id":1,"method":"echo/first","params":{}}` + "\n"
	for _, want := range []string{"record", "replay"} {
		var out bytes.Buffer
		rec := &dropin.RecordOptions{Stages: record.Defaults{NoValidate: true}, Stdout: &out, Stderr: &out}
		rep := &dropin.ReplayOptions{Stdout: &out}
		s := &dropin.Session{Mode: shim.ModeAuto, Command: []string{"cat"}, File: path, Getenv: func(string) string { return "" }}
		var got shim.Action
		s.Decided = func(_ shim.Mode, a shim.Action, _ string) { got = a }
		s.UseRunners(context.Background(), rec, rep)
		if err := s.Run(strings.NewReader(in)); err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		if got.String() != want || out.String() != in {
			t.Errorf("decided %q with output %q, want %s and the echo", got, out.String(), want)
		}
	}
}

// TestRecordContext: a session whose context ends stops its server (SIGTERM) and
// publishes what it recorded, though the client never closed its input.
func TestRecordContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctx.jsonl")
	pr, pw := io.Pipe()
	defer pw.Close()
	var out bytes.Buffer
	rec := &dropin.RecordOptions{Stages: record.Defaults{NoValidate: true}, Stdout: &out, Stderr: &out}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- rec.Record(ctx, path, []string{"cat"}, pr) }()
	if _, err := pw.Write([]byte(`{"id":1,"method":"echo/first","params":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		var xe *dropin.ExitError
		if err != nil && !errors.As(err, &xe) {
			t.Fatalf("Record: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Record did not end with its context")
	}
	rd, err := recorder.ReadFile(path)
	if err != nil {
		t.Fatalf("recording: %v", err)
	}
	if rd.Trailer == nil || rd.Trailer.Ended != recorder.EndSignal {
		t.Errorf("trailer %+v, want ended by a signal", rd.Trailer)
	}
}
