package dropin_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/replay"
	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/stale"
)

const echoIn = `{"id":1,"method":"echo/first","params":{"n":1}}` + "\n" + `{"id":2,"method":"echo/second","params":{"n":1}}` + "\n"

// echoModes are SessionOptions recording a real child (cat, an echo server) and replaying
// it, with the notes on log.
func echoModes(mode shim.Mode, log *bytes.Buffer, out *bytes.Buffer) *dropin.SessionOptions {
	return &dropin.SessionOptions{Mode: mode, Command: []string{"cat"}, Log: log,
		Getenv: func(k string) string { return map[string]string{"CODEXREC_RUN": "modes"}[k] },
		Record: &dropin.RecordOptions{Stages: record.Defaults{NoValidate: true}, Version: "test", Stdout: out, Stderr: out},
		Replay: &dropin.ReplayOptions{Stdout: out, Server: &replay.Server{AllowUnused: true}}}
}

// TestModesRecordThenReplay: mode auto records the real child into a recording
// named in a directory, then replays it; each decision is one note on Log.
func TestModesRecordThenReplay(t *testing.T) {
	dir := t.TempDir() + "/"
	want := filepath.Join(dir, "001-echo-first.jsonl")
	for i, action := range []string{"record", "replay"} {
		var log, out bytes.Buffer
		m := echoModes(shim.ModeAuto, &log, &out)
		run := []string{"first", "second"}[i] // a later run finds the first run's recording
		m.Getenv = func(k string) string { return map[string]string{"CODEXREC_RUN": run}[k] }
		if err := m.Run(context.Background(), dir, strings.NewReader(echoIn)); err != nil {
			t.Fatalf("run %d: %v (%s)", i, err, out.String())
		}
		if note := "mode auto: " + action + " " + want + "\n"; log.String() != note {
			t.Errorf("run %d: notes %q, want %q", i, log.String(), note)
		}
		if out.String() != echoIn {
			t.Errorf("run %d: the client got %q, want the echo", i, out.String())
		}
	}
	if names, _ := filepath.Glob(dir + "*.jsonl"); len(names) != 1 {
		t.Errorf("recordings %q, want %s alone", names, want)
	}
}

// TestModesReplaceAndForce: mode record refuses to replace a recording unless
// Replace (or Record.Force) says so; SessionOptions never changes the caller's Record.
func TestModesReplaceAndForce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var log, out bytes.Buffer
	m := echoModes(shim.ModeRecord, &log, &out)
	if err := m.Run(context.Background(), path, strings.NewReader(echoIn)); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background(), path, strings.NewReader(echoIn)); err == nil {
		t.Fatal("a second record without Replace replaced the recording")
	}
	m.Replace = true
	if err := m.Run(context.Background(), path, strings.NewReader(echoIn)); err != nil {
		t.Fatalf("Replace: %v", err)
	}
	if m.Record.Force {
		t.Error("SessionOptions set the caller's Record.Force")
	}
}

// TestModesStaleRerecord: under stale.Rerecord, a stale recording a session would
// replay is recorded afresh, said on Log; never under CI, where the replay refuses it.
func TestModesStaleRerecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var log, out bytes.Buffer
	if err := echoModes(shim.ModeRecord, &log, &out).Run(context.Background(), path, strings.NewReader(echoIn)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	time.Sleep(10 * time.Millisecond)
	for _, ci := range []bool{true, false} {
		log.Reset()
		m := echoModes(shim.ModeAuto, &log, &out)
		m.Replay.Stale = &stale.Settings{Limits: stale.Limits{MaxAge: "1ms"}, Action: string(stale.Rerecord)}
		if ci {
			m.Getenv = func(k string) string { return map[string]string{"CI": "true"}[k] }
		}
		// Under CI the replay refuses the stale recording it may not record afresh.
		var re *stale.RefusedError
		if err := m.Run(context.Background(), path, strings.NewReader(echoIn)); ci != errors.As(err, &re) || !ci && err != nil {
			t.Fatalf("ci=%v: %v", ci, err)
		}
		after, _ := os.ReadFile(path)
		rerecorded := strings.Contains(log.String(), "recording it afresh") && strings.Contains(log.String(), "mode auto: record ")
		if rerecorded == ci || bytes.Equal(before, after) != ci {
			t.Errorf("ci=%v: notes %q, recording changed %v", ci, log.String(), !bytes.Equal(before, after))
		}
	}
}

// TestModesExtend: mode extend of an existing recording replays
// it (RecordOptions.Extend) when the client holds to it, and refuses under CI.
func TestModesExtend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var log, out bytes.Buffer
	if err := echoModes(shim.ModeRecord, &log, &out).Run(context.Background(), path, strings.NewReader(echoIn)); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	log.Reset()
	m := echoModes(shim.ModeExtend, &log, &out)
	m.Extended = func(record.Report) error {
		t.Error("Extended called for a session that stayed in the recording")
		return nil
	}
	if err := m.Run(context.Background(), path, strings.NewReader(echoIn)); err != nil {
		t.Fatalf("extend within the recording: %v", err)
	}
	if out.String() != echoIn || log.String() != "mode extend: extend "+path+"\n" {
		t.Errorf("client got %q, notes %q", out.String(), log.String())
	}
	t.Setenv("CI", "true")
	_, _, err := m.Record.Extend(context.Background(), path, m.Command, strings.NewReader(echoIn), m.Replay)
	if !errors.Is(err, shim.ErrCI) {
		t.Errorf("Extend under CI: %v, want ErrCI", err)
	}
}

// TestStandinRun: a stand-in's session gets its SessionOptions from the settings hook,
// with the mode and the real codex filled in; a missing directory is refused.
func TestStandinRun(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "codex")
	if err := os.WriteFile(real, []byte("#!/bin/sh\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "rec") + "/"
	env := map[string]string{"CODEXREC_MODE": "record", "CODEXREC_CODEX": real, "CODEXREC_RUN": "standin"}
	st := dropin.Standin{Getenv: func(k string) string { return env[k] }}
	var log, out bytes.Buffer
	var got *dropin.SessionOptions
	settings := func(m *dropin.SessionOptions, listen string) error {
		got = m
		if listen != "" {
			t.Errorf("listen %q for a stdio session", listen)
		}
		e := echoModes(m.Mode, &log, &out)
		m.Record, m.Replay, m.Log = e.Record, e.Replay, e.Log
		return nil
	}
	if err := st.Run(context.Background(), "codex", []string{"app-server"}, strings.NewReader(echoIn), settings); err == nil || !strings.Contains(err.Error(), "CODEXREC_DIR is not set") {
		t.Fatalf("no directory: %v", err)
	}
	if got == nil || got.Mode != shim.ModeRecord || len(got.Command) != 2 || got.Command[0] != real || got.Command[1] != "app-server" {
		t.Fatalf("settings got %+v", got)
	}
	env["CODEXREC_DIR"] = rec
	if err := st.Run(context.Background(), "codex", []string{"app-server"}, strings.NewReader(echoIn), settings); err != nil {
		t.Fatal(err)
	}
	if names, _ := filepath.Glob(rec + "*.jsonl"); len(names) != 1 || out.String() != echoIn {
		t.Errorf("recordings %q, client got %q", names, out.String())
	}
	if f, err := st.OpenReport([]string{"app-server"}); f != nil || err != nil {
		t.Errorf("OpenReport with none set: %v, %v", f, err)
	}
	env["CODEXREC_LOG"] = filepath.Join(dir, "report.log")
	if f, err := st.OpenReport([]string{"--version"}); f != nil || err != nil {
		t.Errorf("OpenReport for no session: %v, %v", f, err)
	}
	f, err := st.OpenReport([]string{"app-server", "--listen", "ws://127.0.0.1:0"})
	if err != nil || f == nil {
		t.Fatalf("OpenReport for a socket session: %v", err)
	}
	f.Close()
	if fi, err := os.Stat(env["CODEXREC_LOG"]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("report file: %v %v", fi, err)
	}
}

func TestStandinAbs(t *testing.T) {
	st, err := dropin.Standin{Mode: "auto", Dir: "rec", Report: "r.log"}.Abs()
	wd, _ := os.Getwd()
	if err != nil || st.Mode != "auto" || st.Dir != filepath.Join(wd, "rec") || st.Report != filepath.Join(wd, "r.log") || st.File != "" || st.Codex != "" {
		t.Errorf("%+v, %v", st, err)
	}
}

// TestReplayStale: ReplayOptions.Stale warns of a stale recording on Log and
// serves it under warn; under fail it refuses it (*stale.RefusedError) before
// serving anything; settings that do not parse are the session's error.
func TestReplayStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var log, out bytes.Buffer
	if err := echoModes(shim.ModeRecord, &log, &out).Run(context.Background(), path, strings.NewReader(echoIn)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	for _, tc := range []struct {
		action, maxAge string
		refused, bad   bool
	}{{action: "warn", maxAge: "1ms"}, {action: "fail", maxAge: "1ms", refused: true}, {action: "fail", maxAge: "soon", bad: true}} {
		log.Reset()
		out.Reset()
		rep := &dropin.ReplayOptions{Stdout: &out, Log: &log, Server: &replay.Server{AllowUnused: true},
			Stale: &stale.Settings{Limits: stale.Limits{MaxAge: tc.maxAge}, Action: tc.action}}
		err := rep.Replay(context.Background(), path, strings.NewReader(echoIn))
		var re *stale.RefusedError
		var le *stale.LimitError
		switch {
		case tc.refused && (!errors.As(err, &re) || out.Len() > 0):
			t.Errorf("%s: %v, client got %q; want a *stale.RefusedError before serving", tc.action, err, out.String())
		case tc.bad && !errors.As(err, &le):
			t.Errorf("max age %q: %v, want a *stale.LimitError", tc.maxAge, err)
		case !tc.refused && !tc.bad && (err != nil || !strings.HasPrefix(log.String(), "warning: stale recording "+path)):
			t.Errorf("warn: %v, notes %q", err, log.String())
		}
	}
}

// TestModesPlain: under Plain, mode record and replay of a file run the runner
// itself, with no decision noted; a plain record replaces nothing without
// Record.Force, Replace or not.
func TestModesPlain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var log, out bytes.Buffer
	for i, mode := range []shim.Mode{shim.ModeRecord, shim.ModeReplay} {
		m := echoModes(mode, &log, &out)
		m.Plain = true
		if err := m.Run(context.Background(), path, strings.NewReader(echoIn)); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if log.Len() > 0 || out.String() != strings.Repeat(echoIn, i+1) {
			t.Errorf("%s: notes %q, client got %q", mode, log.String(), out.String())
		}
	}
	m := echoModes(shim.ModeRecord, &log, &out)
	m.Plain, m.Replace = true, true
	if err := m.Run(context.Background(), path, strings.NewReader(echoIn)); !errors.Is(err, recorder.ErrExists) {
		t.Errorf("plain record over a recording: %v, want recorder.ErrExists", err)
	}
}
