package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/codexrec/codexrec/sanitize"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/codexbin"
	"github.com/codexrec/codexrec/upgrade"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{
		name:         "upgrade",
		args:         "--from A --to B [--codex-from PATH] [--codex-to PATH] [--install] [--scenarios] [--rerun-both] [--json] [-o report.html] [--keep DIR] [RECORDING...]",
		summary:      "rerun recordings (or the shipped scenarios) on codex A and B, diff each pair, add the schema diff, and say what changes for the client (exit 1 when anything is breaking)",
		flags:        upgradeFlags,
		run:          runUpgrade,
		interspersed: true,
	})
}

type upgradeConfig struct {
	from, to, out, keep   string
	codexFrom, codexTo    string
	install               bool
	json, scenarios, both bool
	force, experimental   bool
	failOn                string
}

func upgradeFlags(fs *flag.FlagSet) any {
	c := &upgradeConfig{}
	fs.StringVar(&c.from, "from", "", "the codex `VERSION` the recordings were made with (installed by `codexrec codex install`; default with --codex-from: that binary's version)")
	fs.StringVar(&c.to, "to", "", "the codex `VERSION` to upgrade to (default with --codex-to: that binary's version)")
	fs.StringVar(&c.codexFrom, "codex-from", "", "run this codex binary `PATH` for --from instead of the installed one")
	fs.StringVar(&c.codexTo, "codex-to", "", "run this codex binary `PATH` for --to instead of the installed one")
	fs.BoolVar(&c.install, "install", false, "install a missing --from or --to binary from the npm registry first")
	fs.BoolVar(&c.scenarios, "scenarios", false, "capture the shipped scenarios on both versions instead of rerunning recordings")
	fs.BoolVar(&c.both, "rerun-both", false, "rerun each recording on --from too, even when it was made with that version")
	fs.BoolVar(&c.json, "json", false, "write the report as JSON to stdout")
	fs.StringVar(&c.out, "o", "", "also write the report as a self-contained HTML page to `FILE` (each pair's diff page beside it, in FILE's name + .diffs/)")
	fs.BoolVar(&c.force, "force", false, "overwrite -o FILE if it exists")
	fs.StringVar(&c.keep, "keep", "", "keep the rerun recordings in `DIR` (default: removed)")
	fs.BoolVar(&c.experimental, "experimental", false, "compare the experimental schema sets")
	fs.StringVar(&c.failOn, "fail-on", "error", "exit 1 when something of this `level` or worse is found: "+failOnHelp+" (error: a breaking recording or schema change; warning adds changed recordings)")
	return c
}

func runUpgrade(cfg any, args []string, std stdio) error {
	c := cfg.(*upgradeConfig)
	for _, s := range []struct{ v, bin *string }{{&c.from, &c.codexFrom}, {&c.to, &c.codexTo}} {
		if *s.v == "" && *s.bin != "" {
			v, err := codexbin.Version(context.Background(), *s.bin)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			*s.v = v
		}
	}
	if c.from == "" || c.to == "" {
		return usagef("--from and --to are required (or --codex-from and --codex-to)")
	}
	if c.scenarios == (len(args) > 0) {
		return usagef("want recordings, or --scenarios (not both)")
	}
	level, err := parseFailOn(c.failOn)
	if err != nil {
		return usagef("%v", err)
	}
	if c.out != "" && !c.force {
		if _, err := os.Lstat(c.out); err == nil {
			return usagef("%s exists (--force overwrites it)", c.out)
		}
	}
	o := upgrade.Options{From: c.from, To: c.to, Recordings: args, Scenarios: c.scenarios, RerunBoth: c.both,
		Experimental: c.experimental, Work: c.keep,
		Capture:  fixtures.CaptureOptions{MCPCommand: mcpCommand(), Codexrec: Version},
		Progress: func(s string) { fmt.Fprintf(std.err, "codexrec upgrade: %s\n", s) },
		Codex: func(v string) (string, error) {
			switch {
			case v == c.from && c.codexFrom != "":
				return c.codexFrom, nil
			case v == c.to && c.codexTo != "":
				return c.codexTo, nil
			}
			return findCodex(v, c.install, std)
		}}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	res, err := upgrade.Run(ctx, o)
	if err != nil {
		return usageOrIO(err)
	}
	if res.SchemaErr != nil {
		fmt.Fprintf(std.err, "codexrec upgrade: no schema diff: %s\n", sanitize.MaskText(res.SchemaErr.Error()))
	}
	rep := res.Report
	if c.out != "" {
		if err := view.WriteUpgradeFiles(c.out, res); err != nil {
			return usageOrIO(err)
		}
	}
	if c.json {
		err = rep.WriteJSON(std.out)
	} else {
		// The report quotes recordings (methods, a server's error messages): masked.
		var b strings.Builder
		if err = rep.WriteText(&b); err == nil {
			_, err = io.WriteString(std.out, sanitize.MaskText(b.String()))
		}
	}
	if err != nil {
		return err
	}
	if tier, gate := level.tier(); gate {
		if causes := rep.Causes(tier); len(causes) > 0 {
			return &exitError{exitFindings, fmt.Errorf("%s (--fail-on %s)", sanitize.MaskText(strings.Join(causes, "; ")), c.failOn)}
		}
	}
	return nil
}
