package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/codexrec/codexrec/fixtures"
	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/sanitize"
	"github.com/codexrec/codexrec/setting"
	"github.com/codexrec/codexrec/upgrade"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&cli.Command{Name: "upgrade", Flags: upgradeFlags, Run: runUpgrade, Interspersed: true,
		Args:    "--from A --to B [--codex-from PATH] [--codex-to PATH] [--install] [--scenarios] [--rerun-both] [--json] [-o report.html] [--keep DIR] [RECORDING...]",
		Summary: "rerun recordings (or the shipped scenarios) on codex A and B, diff each pair, add the schema diff, and say what changes for the client (exit 1 when anything is breaking)"})
}

type upgradeConfig struct {
	upgrade.Options
	failOn        *failLevel
	install, json bool
	out           cli.Output
}

func upgradeFlags(fs *flag.FlagSet) any {
	c := &upgradeConfig{}
	fs.StringVar(&c.From, "from", "", "the codex `VERSION` the recordings were made with (installed by `codexrec codex install`; default with --codex-from: that binary's version)")
	fs.StringVar(&c.To, "to", "", "the codex `VERSION` to upgrade to (default with --codex-to: that binary's version)")
	fs.StringVar(&c.CodexFrom, "codex-from", "", "run this codex binary `PATH` for --from instead of the installed one")
	fs.StringVar(&c.CodexTo, "codex-to", "", "run this codex binary `PATH` for --to instead of the installed one")
	fs.BoolVar(&c.install, "install", false, "install a missing --from or --to binary from the npm registry first")
	fs.BoolVar(&c.Scenarios, "scenarios", false, "capture the shipped scenarios on both versions instead of rerunning recordings")
	fs.BoolVar(&c.RerunBoth, "rerun-both", false, "rerun each recording on --from too, even when it was made with that version")
	fs.BoolVar(&c.json, "json", false, "write the report as JSON to stdout")
	c.out.Flags(fs, "also write the report as a self-contained HTML page to `FILE` (each pair's diff page beside it, in FILE's name + .diffs/)", "overwrite -o FILE if it exists")
	fs.StringVar(&c.Work, "keep", "", "keep the rerun recordings in `DIR` (default: removed)")
	fs.BoolVar(&c.Experimental, "experimental", false, "compare the experimental schema sets")
	c.failOn = failOnFlag(fs, cli.Error, "exit 1 when something of this `level` or worse is found: "+failOnHelp+" (error: a breaking recording or schema change; warning adds changed recordings)")
	return c
}

func runUpgrade(cfg any, args []string, std cli.IO) error {
	c := cfg.(*upgradeConfig)
	switch {
	case c.out.Path == "-":
		return cli.Usagef("-o -: the HTML report links diff pages written beside it; name a FILE (stdout has the report, --json for JSON)")
	case c.out.Path != "" && !c.out.Force && exists(c.out.Path):
		return cli.Usagef("%s exists (--force replaces it)", c.out.Path)
	}
	c.Recordings, c.Capture = args, fixtures.CaptureOptions{MCPCommand: mcpCommand(), Codexrec: Version}
	c.Progress = func(s string) { fmt.Fprintf(std.Log, "%s\n", s) }
	c.Codex = func(v string) (string, error) { return findCodex(v, c.install, true, std) }
	ctx, stop := cli.Interruptible()
	defer stop()
	res, err := upgrade.Run(ctx, c.Options)
	if err != nil {
		return settingUsage(err, func(se *setting.Error) string {
			if se.Setting == "Recordings" {
				return "want recordings, or --scenarios (not both)"
			}
			return "--from and --to are required (or --codex-from and --codex-to)"
		})
	} else if res.SchemaErr != nil {
		fmt.Fprintf(std.Log, "no schema diff: %s\n", sanitize.MaskText(res.SchemaErr.Error()))
	}
	if c.out.Path != "" {
		if err := view.WriteUpgradeFiles(c.out.Path, res); err != nil {
			return err
		}
	}
	err = res.Report.Write(std.Out, c.json)
	if tier, gate := c.failOn.tier(); err == nil && gate {
		if causes := res.Report.Causes(tier); len(causes) > 0 {
			return cli.ExitWith(exitFindings, fmt.Errorf("%s (--fail-on %s)", sanitize.MaskText(strings.Join(causes, "; ")), c.failOn))
		}
	}
	return err
}

// exists reports whether something is at path.
func exists(path string) bool { _, err := os.Lstat(path); return err == nil }
