package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wsproxy"
	"github.com/codexrec/codexrec/wsreplay"
)

// runSocketSession is a shim's app-server session on a socket (codex app-server
// --listen URL): its connections are recorded (record --listen on URL in front of
// the real codex on a private socket) into, or replayed (replay --listen on URL)
// from, one directory the naming rule names, as the mode says.
func runSocketSession(s sessionSpec, listen string, std stdio) error {
	if s.mode == shim.ModePassthrough {
		if s.command == nil {
			return &exitError{exitUsage, s.commandErr}
		}
		return passthrough(s.command)
	}
	if s.file != "" {
		return &exitError{exitUsage, fmt.Errorf("app-server --listen %s has one recording per connection, in a directory: set CODEXREC_DIR instead of the recording file %s", listen, s.file)}
	}
	n := &shim.Namer{Dir: s.dir, Run: shim.RunKey(os.Getenv), Name: os.Getenv("CODEXREC_NAME")}
	p, err := n.Next("socket")
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("naming the recording: %w", err)}
	}
	dir := strings.TrimSuffix(p, ".jsonl") + string(filepath.Separator)
	_, findErr := wsreplay.FindRecordings(dir)
	exists := findErr == nil
	action, err := s.mode.Decide(dir, exists, shim.IsCI(os.Getenv))
	if err != nil {
		return &exitError{exitUsage, err}
	}
	var note io.Writer = std.err
	if sessionReport != nil {
		note = io.MultiWriter(std.err, sessionReport)
	}
	fmt.Fprintf(note, "codexrec: mode %s: %s %s\n", s.mode, action, dir)
	switch action {
	case shim.Replay:
		if sessionReport != nil {
			std.err = io.MultiWriter(std.err, sessionReport)
		}
		s.rep.listen, s.rep.banner = listen, true
		return replaySession(s.rep, dir, nil, std)
	case shim.Record:
		if s.command == nil {
			return &exitError{exitUsage, s.commandErr}
		}
		return recordSocketSession(s.rec, listen, dir, exists, s.command, std)
	}
	return passthrough(s.command)
}

// recordSocketSession records the connections to listen into dir, with command
// (codex app-server --listen URL) started on a private socket instead. Recordings
// already in dir are replaced, but only once the run ends with new ones: until
// then they stay, and the run records into a directory beside dir.
func recordSocketSession(c *recordConfig, listen, dir string, replace bool, command []string, std stdio) error {
	c.socket = socketFlags{listen: listen, banner: true}
	c.out = dir
	if !replace {
		return runRecordSocket(c, wsproxy.WithoutListen(command), std)
	}
	clean := filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(clean), "."+filepath.Base(clean)+".new-")
	if err != nil {
		return &exitError{exitUsage, err}
	}
	c.out = tmp
	err = runRecordSocket(c, wsproxy.WithoutListen(command), std)
	if names, findErr := wsreplay.FindRecordings(tmp); findErr == nil {
		if swapErr := replaceDir(clean, tmp); swapErr != nil {
			return &exitError{exitUsage, errors.Join(err, fmt.Errorf("the new recordings are in %s: %w", tmp, swapErr))}
		}
		fmt.Fprintf(std.err, "codexrec: %s replaced by %d new recording(s)\n", dir, len(names))
	} else {
		os.RemoveAll(tmp)
	}
	return err
}

// replaceDir puts the directory next in the place of dir.
func replaceDir(dir, next string) error {
	old := next + ".old"
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(next, dir); err != nil {
		os.Rename(old, dir)
		return err
	}
	return os.RemoveAll(old)
}
