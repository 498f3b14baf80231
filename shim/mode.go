// Package shim lets codexrec stand in for the codex binary without changing how a
// client starts it: it decides what an app-server session does with its recording
// (Mode, like go-vcr's recorder modes), names recordings so that a later run finds
// the same one again, finds the real codex and writes the `codex` script. It does not
// record or replay itself: the record and replay packages do, driven by the command.
package shim

import (
	"errors"
	"fmt"
	"strings"
)

// Mode says what a session does with its recording. The zero value is ModeAuto.
type Mode uint8

const (
	// ModeAuto replays the recording when it exists and records it otherwise; when
	// the environment says CI, it never records (a missing recording is an error).
	ModeAuto Mode = iota
	// ModeRecord always records, replacing a recording of the same name.
	ModeRecord
	// ModeReplay only replays; a missing recording is an error naming it.
	ModeReplay
	// ModePassthrough runs the real codex and records nothing.
	ModePassthrough
	// ModeExtend replays the recording and, at the first client message it does
	// not hold, continues with the real codex and records the rest into it (go-vcr's
	// new episodes; package extend). A missing recording is recorded. Refused when
	// the environment says CI.
	ModeExtend
)

var modeNames = [...]string{"auto", "record", "replay", "passthrough", "extend"}

func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode is the inverse of Mode.String; "" is ModeAuto.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return ModeAuto, nil
	}
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q (want record, replay, auto, passthrough or extend)", s)
}

// Action is what one session does.
type Action uint8

const (
	Replay      Action = iota // serve the recording
	Record                    // run the real codex and record the session
	Passthrough               // run the real codex, record nothing
	Extend                    // replay, then the real codex from the first message not recorded, recorded into it
)

func (a Action) String() string {
	return [...]string{"replay", "record", "passthrough", "extend"}[a]
}

// ErrNoRecording: the mode needs a recording that does not exist.
var ErrNoRecording = errors.New("no recording")

// ErrCI: the mode would record, which it never does when the environment says CI.
var ErrCI = errors.New("refused under CI")

// Decide is what a session in mode m does when its recording exists or not, with ci
// saying whether the environment is CI (see IsCI). The error wraps ErrNoRecording
// and names path.
func (m Mode) Decide(path string, exists, ci bool) (Action, error) {
	switch m {
	case ModeRecord:
		return Record, nil
	case ModePassthrough:
		return Passthrough, nil
	case ModeExtend:
		switch {
		case ci:
			return 0, fmt.Errorf("mode extend is %w (CI is set): it would run the real codex and change %s; replay it with mode replay", ErrCI, path)
		case !exists:
			return Record, nil
		}
		return Extend, nil
	case ModeReplay:
		if !exists {
			return 0, fmt.Errorf("%w %s (mode replay; record it with mode record or auto)", ErrNoRecording, path)
		}
		return Replay, nil
	}
	switch {
	case exists:
		return Replay, nil
	case ci:
		return 0, fmt.Errorf("%w %s (mode auto never records when CI is set: record it on a development machine and commit it)", ErrNoRecording, path)
	}
	return Record, nil
}

// IsCI reports whether the environment is a CI run: CI set to anything but "",
// "0" or "false" (GitHub Actions, GitLab, CircleCI, Travis, Buildkite and others set
// CI=true).
func IsCI(getenv func(string) string) bool {
	switch strings.ToLower(strings.TrimSpace(getenv("CI"))) {
	case "", "0", "false", "no":
		return false
	}
	return true
}
