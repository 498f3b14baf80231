package main

import (
	"flag"

	"github.com/codexrec/codexrec/check"
	"github.com/codexrec/codexrec/diff"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/schema"
)

// failLevel is --fail-on's value, the same vocabulary in every command (cli.Level,
// refused while the flags are parsed), with its meaning for each library's findings.
type failLevel struct{ cli.Level }

// failOnFlag registers --fail-on on fs, def its default; help says what it fails on.
func failOnFlag(fs *flag.FlagSet, def cli.Level, help string) *failLevel {
	l := &failLevel{def}
	fs.Var(&l.Level, "fail-on", help)
	return l
}

const failOnHelp = cli.LevelNames

// fails reports whether a schema finding of rule r reaches the level (a rule
// below error severity counts as a warning).
func (l failLevel) fails(r schema.Rule) bool {
	sev := cli.Warning
	if r.Severity() == schema.SeverityError {
		sev = cli.Error
	}
	return l.Reaches(sev)
}

// checkSeverity is the level as check's severity (never: none).
func (l failLevel) checkSeverity() check.Severity {
	return [...]check.Severity{check.Error, check.Info, check.Warning, check.Error}[l.Level]
}

// tier is the level as a schema diff tier (error is breaking); ok is false for never.
func (l failLevel) tier() (diff.Tier, bool) {
	return diff.ParseTier([...]string{"", "info", "warning", "breaking"}[l.Level])
}
