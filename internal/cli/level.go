package cli

import (
	"fmt"
	"strings"
)

// Level is a fail-on threshold, one vocabulary for every command with a verdict:
// fail when a finding at or above the level occurred. Levels, lowest first: Info,
// Warning, Error; Never fails on nothing.
type Level int

const (
	Never Level = iota
	Info
	Warning
	Error
)

// LevelNames is the vocabulary ParseLevel takes, for help text.
const LevelNames = "info, warning, error or never"

// levelAliases keep older spellings working: invalid/undeclared/none, breaking.
var levelAliases = map[string]Level{
	"never": Never, "info": Info, "warning": Warning, "error": Error,
	"none": Never, "invalid": Error, "undeclared": Warning, "breaking": Error,
}

// ParseLevel parses a level, case-insensitively.
func ParseLevel(s string) (Level, error) {
	if l, ok := levelAliases[strings.ToLower(s)]; ok {
		return l, nil
	}
	return Never, fmt.Errorf("want %s", LevelNames)
}

// Reaches reports whether a finding of severity sev (Info, Warning or Error)
// fails at level l.
func (l Level) Reaches(sev Level) bool { return l != Never && sev >= l }

// String is the level's name.
func (l Level) String() string {
	return [...]string{"never", "info", "warning", "error"}[l]
}

// Set parses s (ParseLevel): a *Level is a flag.Value, so a bad level is refused
// while the flags are parsed.
func (l *Level) Set(s string) (err error) {
	*l, err = ParseLevel(s)
	return err
}
