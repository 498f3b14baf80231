package main

import (
	"flag"
	"fmt"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&cli.Command{Name: "scan", Args: "[flags] FILE...", Run: runScan, Interspersed: true, Operands: cli.Some("files"),
		Summary: "run the leak guard on recordings (or any text files): exit 3 when something secret-shaped is found",
		Flags: func(fs *flag.FlagSet) any {
			c := &scanConfig{}
			fs.BoolVar(&c.json, "json", false, "print what was found as one JSON document on stdout (masked previews only)")
			sanitizeFlags(fs, &c.flags, false)
			return c
		}})
}

type scanConfig struct {
	json  bool
	flags sanitize.Config
}

func runScan(cfg any, args []string, std cli.IO) error {
	c := cfg.(*scanConfig)
	z, _, err := sanitizer(c.flags, "")
	if err != nil {
		return err
	}
	report, err := z.ScanFiles(args)
	switch {
	case err != nil && c.json:
	case c.json:
		err = report.WriteJSON(std.Out)
	default: // with an unreadable file, what was found before it
		if werr := report.WriteText(std.Out); err == nil {
			err = werr
		}
	}
	switch {
	case err != nil:
		return err
	case report.Leaks > 0:
		return cli.ExitWith(exitLeak, fmt.Errorf("%d secret-shaped value(s) found; if one is a known false positive, allow it with --allow REGEX (matched against the value) or --allow-file FILE", report.Leaks))
	}
	fmt.Fprintf(std.Log, "%d file(s) clean\n", len(args))
	return nil
}
