package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/codexrec/codexrec/internal/cli"
	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/sanitize"
)

func init() {
	register(&cli.Command{Config: true, Name: "sanitize", Args: "IN -o OUT [flags]", Flags: sanitizeCmdFlags, Run: runSanitize, Interspersed: true, Operands: cli.One("recording"),
		Summary: "write a sanitized copy of a recording, then run the leak guard on it"})
}

type sanitizeConfig struct {
	out     cli.Output
	noMaps  bool
	sanFlag sanitize.Config
}

func sanitizeCmdFlags(fs *flag.FlagSet) any {
	c := &sanitizeConfig{}
	c.out.Flags(fs, "write the sanitized recording to `FILE` (required; - for stdout)", "overwrite FILE if it exists")
	fs.BoolVar(&c.noMaps, "no-default-maps", false, "map only the --map paths, not this machine's cwd, home, temp dir and CODEX_HOME")
	sanitizeFlags(fs, &c.sanFlag, true)
	settings.Apply("sanitize", fs)
	return c
}

func runSanitize(cfg any, args []string, std cli.IO) (err error) {
	c := cfg.(*sanitizeConfig)
	if c.out.Path == "" {
		return cli.Usagef("-o FILE is required (- for stdout)")
	}
	cwd := ""
	if !c.noMaps {
		if cwd, err = os.Getwd(); err != nil {
			return err
		}
	}
	z, names, err := sanitizer(c.sanFlag, cwd)
	if err != nil {
		return err
	}
	// The copy's meta entries come from the source: the session adds none.
	s := &record.Session{Sanitizer: z, Guard: z, SecretNames: names}
	var warning string
	if c.out.Path == "-" {
		warning, err = s.SanitizeTo(std.Out, args[0])
	} else {
		warning, err = s.SanitizeFile(args[0], c.out.Path, recorder.Options{Force: c.out.Force})
	}
	if warning != "" {
		fmt.Fprintf(std.Log, "%s\n", sanitize.MaskText(warning))
	}
	if r := s.Report(); len(r.Redactions) > 0 {
		fmt.Fprintf(std.Log, "%s\n", record.RedactionSummary(r.Redactions))
	}
	return exitFor(err)
}
