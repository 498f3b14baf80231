// Package dropin runs app-server sessions as codexrec's record and replay do: the
// runners (RecordOptions.Record and RecordSocket, ReplayOptions.Replay and
// ReplaySocket, RecordOptions.Extend for mode extend) own a process's signals, the
// proxy or relay and the recording; a Session decides once, as a drop-in mode says
// (shim.Mode: record, replay, auto, passthrough, extend), whether a session records,
// replays or runs the real codex, naming the recording by the naming rule in a
// directory; SessionOptions are such a session's settings in one struct, and
// Standin.Run is codexrec standing in for codex. The options' Validate methods
// refuse settings that do not go together (a *SettingError naming the field), and
// ReplayOptions.Stale warns of or refuses a stale recording. It parses no flags and
// chooses no exit codes: its errors are typed for the caller to map, its notes go
// to the writers it is given.
package dropin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wire"
)

// Session is one app-server session whose fate a mode decides: record, replay or
// pass through, into an exact file or a named one in a directory. Record and Replay
// are required for a mode that may choose them; the zero value of the rest reads
// the environment with os.Getenv and says nothing.
type Session struct {
	Mode       shim.Mode
	File       string   // the recording, when exact
	Dir        string   // the directory of named recordings (naming rule), when not
	Command    []string // the real app-server to run; nil when there is none
	CommandErr error    // why Command is nil
	Getenv     func(string) string

	// Record records the session into path with the client on in (stdio); Replay
	// serves the recording at path to it.
	Record, Replay func(path string, in io.Reader) error
	// Extend replays the recording at path and records what it does not hold
	// with the real codex (Command) into it; required for ModeExtend.
	Extend func(path string, in io.Reader) error
	// RecordSocket records the connections to the listen URL into the directory;
	// ReplaySocket replays the directory's recordings to them (RunSocket).
	RecordSocket, ReplaySocket func(dir string) error
	// Override, when set, may change what the mode decided for a stdio session at
	// path (for example record afresh a recording found stale) before Decided is
	// told; it returns the action to take.
	Override func(path string, a shim.Action) shim.Action
	// Decided, when set, is told what the session does, before it starts.
	Decided func(m shim.Mode, a shim.Action, path string)
	// Replaced, when set, is told that a socket session's directory was replaced by
	// n new recordings.
	Replaced func(dir string, n int)
}

// IsDirTarget reports whether a recording argument names a directory of recordings:
// it ends in a separator ("DIR/"). A directory named without one is refused as a
// recording's target rather than taken to mean naming.
func IsDirTarget(p string) bool {
	return strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator))
}

// SetTarget sets File, or Dir when p is a directory target.
func (s *Session) SetTarget(p string) {
	if IsDirTarget(p) {
		s.Dir = p
	} else {
		s.File = p
	}
}

func (s *Session) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

func (s *Session) namer() *shim.Namer {
	return &shim.Namer{Dir: s.Dir, Run: shim.RunKey(s.getenv), Name: s.getenv("CODEXREC_NAME")}
}

// Run runs the session on stdio with the client on in.
func (s *Session) Run(in io.Reader) error {
	if s.Mode == shim.ModePassthrough {
		return s.passthrough()
	}
	path := s.File
	if s.Dir != "" {
		// The name depends on the first request, so it is read before anything runs;
		// the session then sees it as if it had never been read.
		br := bufio.NewReader(in)
		first, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading the client's first message: %w", err)
		}
		method := ""
		if m := wire.Classify(first); m.Kind == wire.KindRequest {
			method = m.Method
		}
		if path, err = s.namer().Next(method); err != nil {
			return fmt.Errorf("naming the recording: %w", err)
		}
		in = io.MultiReader(bytes.NewReader(first), br)
	}
	_, statErr := os.Stat(path)
	action, err := s.Mode.Decide(path, statErr == nil, shim.IsCI(s.getenv))
	if err != nil {
		return err
	}
	if s.Override != nil {
		action = s.Override(path, action)
	}
	if s.Decided != nil {
		s.Decided(s.Mode, action, path)
	}
	switch action {
	case shim.Replay:
		return s.Replay(path, in)
	case shim.Record:
		if s.Command == nil {
			return s.CommandErr
		}
		return s.Record(path, in)
	case shim.Extend:
		if s.Command == nil {
			return s.CommandErr
		}
		if s.Extend == nil {
			return errors.New("mode extend is not available here")
		}
		return s.Extend(path, in)
	}
	return s.passthrough()
}

// passthrough replaces this process with the command, unrecorded.
func (s *Session) passthrough() error {
	if s.Command == nil {
		return s.CommandErr
	}
	p, err := exec.LookPath(s.Command[0])
	if err != nil {
		return err
	}
	return shim.Exec(p, s.Command[1:])
}
