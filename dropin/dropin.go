package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wire"
)

// sessionSpec is one app-server session whose fate a mode decides: record, replay or
// pass through, into an exact file or a named one in a directory.
type sessionSpec struct {
	mode       shim.Mode
	file       string   // the recording, when exact
	dir        string   // the directory of named recordings (naming rule), when not
	command    []string // the real app-server to run; nil when there is none
	commandErr error    // why command is nil
	replace    bool     // a record replaces an existing recording (mode record chosen, or --force)
	rec        *recordConfig
	rep        *replayConfig
}

// isDirTarget reports whether a recording argument names a directory of recordings:
// it ends in a separator ("DIR/"). A directory named without one is refused as a
// recording's target, as it always was, rather than taken to mean naming.
func isDirTarget(p string) bool {
	return strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator))
}

func (s *sessionSpec) setTarget(p string) {
	if isDirTarget(p) {
		s.dir = p
	} else {
		s.file = p
	}
}

// defaultRecordConfig is record's flags at their defaults.
func defaultRecordConfig() *recordConfig {
	return recordFlags(flag.NewFlagSet("record", flag.ContinueOnError)).(*recordConfig)
}

// runSession runs one session as its mode and recording decide.
func runSession(s sessionSpec, std stdio) error {
	if s.mode == shim.ModePassthrough {
		if s.command == nil {
			return &exitError{exitUsage, s.commandErr}
		}
		return passthrough(s.command)
	}
	in := std.in
	path := s.file
	if s.dir != "" {
		// The name depends on the first request, so it is read before anything runs;
		// the session then sees it as if it had never been read.
		br := bufio.NewReader(std.in)
		first, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return &exitError{exitUsage, fmt.Errorf("reading the client's first message: %w", err)}
		}
		method := ""
		if m := wire.Classify(first); m.Kind == wire.KindRequest {
			method = m.Method
		}
		n := &shim.Namer{Dir: s.dir, Run: shim.RunKey(os.Getenv), Name: os.Getenv("CODEXREC_NAME")}
		if path, err = n.Next(method); err != nil {
			return &exitError{exitUsage, fmt.Errorf("naming the recording: %w", err)}
		}
		in = io.MultiReader(bytes.NewReader(first), br)
	}
	_, statErr := os.Stat(path)
	action, err := s.mode.Decide(path, statErr == nil, shim.IsCI(os.Getenv))
	if err != nil {
		return &exitError{exitUsage, err}
	}
	var note io.Writer = std.err
	if sessionReport != nil {
		note = io.MultiWriter(std.err, sessionReport)
	}
	fmt.Fprintf(note, "codexrec: mode %s: %s %s\n", s.mode, action, path)
	switch action {
	case shim.Replay:
		if sessionReport != nil {
			std.err = io.MultiWriter(std.err, sessionReport)
		}
		return replaySession(s.rep, path, in, std)
	case shim.Record:
		if s.command == nil {
			return &exitError{exitUsage, s.commandErr}
		}
		// Mode record replaces what a former run recorded under the same name.
		return recordSession(s.rec, path, s.replace || s.rec.force, s.command, in, std)
	}
	return passthrough(s.command)
}

// passthrough replaces this process with the command, unrecorded.
func passthrough(command []string) error {
	p, err := exec.LookPath(command[0])
	if err != nil {
		return &exitError{exitUsage, err}
	}
	return &exitError{exitUsage, shim.Exec(p, command[1:])}
}
