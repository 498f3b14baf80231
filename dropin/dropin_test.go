package dropin_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/shim"
)

// runner records which runner a session chose, with the path and what the client
// sent (the first line the naming read must still reach the runner).
type runner struct {
	action, path, input string
}

func session(mode shim.Mode, r *runner, env map[string]string) *dropin.Session {
	run := func(action string) func(string, io.Reader) error {
		return func(path string, in io.Reader) error {
			b, _ := io.ReadAll(in)
			*r = runner{action, path, string(b)}
			return nil
		}
	}
	return &dropin.Session{Mode: mode, Command: []string{"codex", "app-server"},
		Getenv: func(k string) string { return env[k] },
		Record: run("record"), Replay: run("replay")}
}

func TestRunModes(t *testing.T) {
	const first = `{"id":1,"method":"initialize","params":{}}` + "\n"
	env := map[string]string{"CODEXREC_RUN": "test"}
	for _, tc := range []struct {
		mode   shim.Mode
		exists bool
		ci     bool
		want   string // runner, or "" for an error
	}{
		{shim.ModeAuto, false, false, "record"},
		{shim.ModeAuto, true, false, "replay"},
		{shim.ModeAuto, false, true, ""},
		{shim.ModeReplay, false, false, ""},
		{shim.ModeRecord, true, false, "record"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "s.jsonl")
		if tc.exists {
			os.WriteFile(file, nil, 0o600)
		}
		e := map[string]string{"CODEXREC_RUN": env["CODEXREC_RUN"]}
		if tc.ci {
			e["CI"] = "true"
		}
		var r runner
		var decided []string
		s := session(tc.mode, &r, e)
		s.Decided = func(m shim.Mode, a shim.Action, p string) { decided = append(decided, a.String()+" "+p) }
		s.SetTarget(file)
		err := s.Run(strings.NewReader(first))
		switch {
		case tc.want == "":
			if !errors.Is(err, shim.ErrNoRecording) || r.action != "" {
				t.Errorf("%v exists=%v ci=%v: %v, ran %q; want ErrNoRecording", tc.mode, tc.exists, tc.ci, err, r.action)
			}
		case err != nil || r.action != tc.want || r.path != file || r.input != first:
			t.Errorf("%v exists=%v ci=%v: %v, ran %+v; want %s", tc.mode, tc.exists, tc.ci, err, r, tc.want)
		case len(decided) != 1 || decided[0] != tc.want+" "+file:
			t.Errorf("decided %q", decided)
		}
	}
}

// TestRunNamed: a directory target names the recording by the client's first
// request, and the runner still gets every byte the client sent.
func TestRunNamed(t *testing.T) {
	dir := t.TempDir() + "/"
	in := `{"id":1,"method":"initialize","params":{}}` + "\n" + `{"method":"initialized"}` + "\n"
	var r runner
	s := session(shim.ModeAuto, &r, map[string]string{"CODEXREC_RUN": "named"})
	s.SetTarget(dir)
	if !dropin.IsDirTarget(dir) || s.Dir != dir {
		t.Fatalf("%s is not taken as a directory", dir)
	}
	if err := s.Run(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if r.action != "record" || r.path != filepath.Join(dir, "001-initialize.jsonl") || r.input != in {
		t.Errorf("ran %+v", r)
	}
}

func TestRunNoCommand(t *testing.T) {
	var r runner
	s := session(shim.ModeRecord, &r, nil)
	s.Command, s.CommandErr = nil, errors.New("no codex")
	s.SetTarget(filepath.Join(t.TempDir(), "s.jsonl"))
	if err := s.Run(strings.NewReader("")); err == nil || err.Error() != "no codex" || r.action != "" {
		t.Errorf("%v, ran %q", err, r.action)
	}
}

func TestRunSocketRefusesFile(t *testing.T) {
	var r runner
	s := session(shim.ModeAuto, &r, nil)
	s.File = "x.jsonl"
	if err := s.RunSocket("ws://127.0.0.1:0"); !errors.Is(err, dropin.ErrSocketFile) {
		t.Errorf("%v, want ErrSocketFile", err)
	}
}
