package main

import (
	"fmt"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/schema"
)

// failLevel is --fail-on's value, the same vocabulary in every command (cli.Level),
// with its meaning for each library's findings.
type failLevel cli.Level

const (
	failNever = failLevel(cli.Never)
	failInfo  = failLevel(cli.Info)
)

const failOnHelp = cli.LevelNames

func parseFailOn(s string) (failLevel, error) {
	l, err := cli.ParseLevel(s)
	if err != nil {
		return 0, fmt.Errorf("--fail-on %w", err)
	}
	return failLevel(l), nil
}

// fails reports whether a schema finding of rule r reaches the level (a rule
// below error severity counts as a warning).
func (l failLevel) fails(r schema.Rule) bool {
	sev := cli.Warning
	if r.Severity() == schema.SeverityError {
		sev = cli.Error
	}
	return cli.Level(l).Reaches(sev)
}

// checkSeverity is the level as check's severity; ok is false for never.
func (l failLevel) checkSeverity() (check.Severity, bool) {
	return [...]check.Severity{check.Error, check.Info, check.Warning, check.Error}[l], l != failNever
}

// tier is the level as a schema diff tier (error is breaking); ok is false for never.
func (l failLevel) tier() (diff.Tier, bool) {
	return diff.ParseTier([...]string{"", "info", "warning", "breaking"}[l])
}
