package dropin

import (
	"errors"
	"os"
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
