package dropin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexrec/codexrec/shim"
	"github.com/codexrec/codexrec/wsreplay"
)

// ErrSocketFile: a socket session has one recording per connection, so it needs a
// directory, not a recording file.
var ErrSocketFile = errors.New("one recording per connection, in a directory")

// RunSocket runs an app-server session on a socket (codex app-server --listen
// URL): its connections are recorded (RecordSocket) into, or replayed
// (ReplaySocket) from, one directory the naming rule names, as the mode says.
// Recordings already in the directory are replaced only once the run ends with new
// ones: until then they stay, and the run records into a directory beside it.
func (s *Session) RunSocket(listen string) error {
	if s.Mode == shim.ModePassthrough {
		return s.passthrough()
	}
	if s.File != "" {
		return fmt.Errorf("app-server listening on %s: %w (not the recording file %s)", listen, ErrSocketFile, s.File)
	}
	p, err := s.namer().Next("socket")
	if err != nil {
		return fmt.Errorf("naming the recording: %w", err)
	}
	dir := strings.TrimSuffix(p, ".jsonl") + string(filepath.Separator)
	_, findErr := wsreplay.FindRecordings(dir)
	exists := findErr == nil
	action, err := s.Mode.Decide(dir, exists, shim.IsCI(s.getenv))
	if err != nil {
		return err
	}
	if s.Decided != nil {
		s.Decided(s.Mode, action, dir)
	}
	switch action {
	case shim.Replay:
		return s.ReplaySocket(dir)
	case shim.Record:
		if s.Command == nil {
			return s.CommandErr
		}
		if !exists {
			return s.RecordSocket(dir)
		}
		return s.recordReplacing(dir)
	case shim.Extend:
		return fmt.Errorf("app-server listening on %s: mode extend serves stdio sessions only (replay the directory %s with mode replay, or record it afresh)", listen, dir)
	}
	return s.passthrough()
}

// recordReplacing records into a directory beside dir and puts it in dir's place
// once it holds recordings.
func (s *Session) recordReplacing(dir string) error {
	clean := filepath.Clean(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(clean), "."+filepath.Base(clean)+".new-")
	if err != nil {
		return err
	}
	err = s.RecordSocket(tmp)
	if names, findErr := wsreplay.FindRecordings(tmp); findErr == nil {
		if swapErr := replaceDir(clean, tmp); swapErr != nil {
			return errors.Join(err, fmt.Errorf("the new recordings are in %s: %w", tmp, swapErr))
		}
		if s.Replaced != nil {
			s.Replaced(dir, len(names))
		}
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
