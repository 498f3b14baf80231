package main

import (
	"flag"
	"io"

	"github.com/codexrec/codexrec/dropin"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/stale"
)

// modes fills in m, a drop-in session's settings, from record's flags rec and
// replay's rep: the notes and the replay's diagnostics go to stderr and, when set,
// to report too.
func modes(m *dropin.Modes, rec *recordConfig, rep *replayConfig, std stdio, report io.Writer) error {
	note := std.err
	if report != nil {
		note = io.MultiWriter(std.err, report)
	}
	if m.Command != nil {
		rep.stale.codex = m.Command[0] // --min-codex installed: the codex that would record
	}
	var err error
	if m.Record, err = rec.options(std); err != nil {
		return err
	}
	rstd := std
	rstd.err = note
	if m.Replay, err = rep.options(rstd); err != nil {
		return err
	}
	m.Log, m.Stale, m.StalePolicy = prefixed(note, "codexrec: "), stale.Action(rep.stale.action), rep.stale.policy
	m.Extended = func(r record.Report) error { return rec.stages.report(note, "replay", r) }
	return nil
}

// defaultRecordConfig is record's flags at their defaults.
func defaultRecordConfig() *recordConfig {
	return recordFlags(flag.NewFlagSet("record", flag.ContinueOnError)).(*recordConfig)
}

// defaultReplayConfig is replay's flags at their defaults.
func defaultReplayConfig() *replayConfig {
	return replayFlags(flag.NewFlagSet("replay", flag.ContinueOnError)).(*replayConfig)
}
