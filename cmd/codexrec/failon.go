package main

import (
	"fmt"
	"strings"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/schema"
)

// failLevel is --fail-on's value, the same vocabulary in every command: exit 1
// when a finding or difference at or above the level occurred. Levels, lowest
// first: info, warning, error; never turns it off.
type failLevel int

const (
	failNever failLevel = iota
	failInfo
	failWarning
	failError
)

const failOnHelp = "info, warning, error or never"

// failAliases keep the spellings older versions documented working: validate's
// and record's invalid/undeclared/none, schema diff's breaking.
var failAliases = map[string]failLevel{
	"never": failNever, "info": failInfo, "warning": failWarning, "error": failError,
	"none": failNever, "invalid": failError, "undeclared": failWarning, "breaking": failError,
}

func parseFailOn(s string) (failLevel, error) {
	if l, ok := failAliases[strings.ToLower(s)]; ok {
		return l, nil
	}
	return 0, fmt.Errorf("--fail-on %q: want %s", s, failOnHelp)
}

// fails reports whether a schema finding of rule r reaches the level.
func (l failLevel) fails(r schema.Rule) bool {
	switch {
	case l == failNever:
		return false
	case r.Severity() == schema.SeverityError:
		return true
	}
	return l <= failWarning
}

// checkSeverity is the level as check's severity; ok is false for never.
func (l failLevel) checkSeverity() (check.Severity, bool) {
	switch l {
	case failInfo:
		return check.Info, true
	case failWarning:
		return check.Warning, true
	case failError:
		return check.Error, true
	}
	return check.Error, false
}

// tier is the level as a schema diff tier (error is breaking); ok is false for never.
func (l failLevel) tier() (diff.Tier, bool) {
	names := map[failLevel]string{failInfo: "info", failWarning: "warning", failError: "breaking"}
	t, ok := diff.ParseTier(names[l])
	return t, ok
}
