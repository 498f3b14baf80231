package dropin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/codexrec/codexrec/shim"
)

// Standin holds the drop-in settings that codexrec standing in for codex may have
// fixed (an installed script's); each one left "" is read from its environment
// variable (CODEXREC_MODE, CODEXREC_DIR, CODEXREC_CODEX) with Getenv, os.Getenv
// when nil. File has no variable.
type Standin struct {
	Mode, Dir, File, Codex string
	// Report is the file a session's diagnostics also go to; "" reads CODEXREC_LOG.
	Report string
	Getenv func(string) string
}

// The variables holding a stand-in's record and replay settings: it has no command
// line of its own, so they are written as the commands' flags
// (CODEXREC_REPLAY_FLAGS="--unordered --match method").
const (
	RecordFlagsEnv = "CODEXREC_RECORD_FLAGS"
	ReplayFlagsEnv = "CODEXREC_REPLAY_FLAGS"
)

// RecordArgs are the record settings of RecordFlagsEnv split at white space; none
// when unset.
func (st Standin) RecordArgs() []string { return strings.Fields(st.getenv(RecordFlagsEnv)) }

// ReplayArgs are the replay settings of ReplayFlagsEnv split at white space; none
// when unset.
func (st Standin) ReplayArgs() []string { return strings.Fields(st.getenv(ReplayFlagsEnv)) }

// ReportFile is Report, else CODEXREC_LOG; "" when neither is set (no report).
func (st Standin) ReportFile() string { return st.or(st.Report, "CODEXREC_LOG") }

// ErrNoDir is Target's error when neither a recording nor a directory is set and
// the mode needs one.
var ErrNoDir = errors.New("no recordings directory set")

func (st Standin) getenv(k string) string {
	if st.Getenv != nil {
		return st.Getenv(k)
	}
	return os.Getenv(k)
}

func (st Standin) or(v, env string) string {
	if v != "" {
		return v
	}
	return st.getenv(env)
}

// Real finds the real codex (shim.FindReal): Codex, else as CODEXREC_CODEX or
// PATH past self say.
func (st Standin) Real(self string) (string, error) {
	return shim.FindReal(self, func(k string) string {
		if k == "CODEXREC_CODEX" {
			return st.or(st.Codex, k)
		}
		return st.getenv(k)
	})
}

// ParseMode parses Mode, else CODEXREC_MODE ("" is shim's default).
func (st Standin) ParseMode() (shim.Mode, error) {
	return shim.ParseMode(st.or(st.Mode, "CODEXREC_MODE"))
}

// Target sets s's recording: File, else the directory Dir or CODEXREC_DIR names.
// With neither, a passthrough session needs none; any other is ErrNoDir.
func (st Standin) Target(s *Session) error {
	switch dir := st.or(st.Dir, "CODEXREC_DIR"); {
	case st.File != "":
		s.File = st.File
	case dir != "":
		s.Dir = dir
	case s.Mode != shim.ModePassthrough:
		return ErrNoDir
	}
	return nil
}

// IsSession reports whether codex's arguments start an app-server session, on
// stdio or on a socket: the invocations a stand-in records or replays.
func IsSession(args []string) bool { return shim.IsSession(args) || shim.SocketListen(args) != "" }

// OpenReport opens the report file (ReportFile) for appending, 0600, when one is
// set and args start a session (IsSession); nil when not.
func (st Standin) OpenReport(args []string) (*os.File, error) {
	p := st.ReportFile()
	if p == "" || !IsSession(args) {
		return nil, nil
	}
	return os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
}

// Abs is st with its paths (Dir, File, Codex, Report) made absolute, for a script
// that may run from any directory.
func (st Standin) Abs() (Standin, error) {
	for _, p := range []*string{&st.Dir, &st.File, &st.Codex, &st.Report} {
		if *p == "" {
			continue
		}
		a, err := filepath.Abs(*p)
		if err != nil {
			return st, err
		}
		*p = a
	}
	return st, nil
}

// Install writes dir/codex, a script standing in for codex (shim.Install) that
// runs the command line command gives for st with its paths made absolute (Abs),
// the settings the script fixes, and returns its path. A Mode that does not parse
// is a *SettingError of Mode, before anything is written; on Windows the error
// wraps shim.ErrNoShell.
func (st Standin) Install(dir string, command func(fixed Standin) []string) (string, error) {
	if _, err := shim.ParseMode(st.Mode); err != nil {
		return "", &SettingError{Setting: "Mode", Err: err}
	}
	fixed, err := st.Abs()
	if err != nil {
		return "", err
	}
	return shim.Install(dir, command(fixed))
}

// Run runs codex's arguments as the stand-in started as self (its argv[0] or
// path). An app-server session (IsSession) is run as SessionOptions say: settings
// fills them in, given Mode, Command (the real codex with args, nil when none was
// found, CommandErr saying why) and the URL a socket session listens on ("" for
// stdio);
// the session is on stdio with the client on in, or on that socket (its
// recordings in one directory, codex's own listening banner printed), its
// recording File, else in Dir or CODEXREC_DIR. Anything else replaces this
// process with the real codex (shim.Exec), so Run returns only its error.
func (st Standin) Run(ctx context.Context, self string, args []string, in io.Reader, settings func(m *SessionOptions, listen string) error) error {
	real, realErr := st.Real(self)
	listen := shim.SocketListen(args)
	if !IsSession(args) {
		if realErr != nil {
			return realErr
		}
		return shim.Exec(real, args)
	}
	mode, err := st.ParseMode()
	if err != nil {
		return fmt.Errorf("CODEXREC_MODE: %w", err)
	}
	m := &SessionOptions{Mode: mode, CommandErr: realErr, Getenv: st.Getenv}
	if realErr == nil {
		m.Command = append([]string{real}, args...)
	}
	if err := settings(m, listen); err != nil {
		return err
	}
	if listen != "" {
		rec := RecordOptions{}
		if m.Record != nil {
			rec = *m.Record
		}
		rec.Listen, rec.Upstream, rec.URLFile, rec.MemoryBudget, rec.Banner = listen, "", "", 0, true
		m.Record = &rec
		rep := ReplayOptions{}
		if m.Replay != nil {
			rep = *m.Replay
		}
		rep.Listen, rep.Banner = listen, true
		m.Replay = &rep
	}
	s := m.Session(ctx)
	if err := st.Target(s); err != nil {
		return errors.New("CODEXREC_DIR is not set: where do the recordings go? (or CODEXREC_MODE=passthrough)")
	}
	if listen != "" {
		return s.RunSocket(listen)
	}
	return s.Run(in)
}
