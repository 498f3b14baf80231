package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/codexrec/codexrec/record"
	"github.com/codexrec/codexrec/recorder"
)

func init() {
	register(&command{
		name:         "sanitize",
		args:         "IN -o OUT [flags]",
		summary:      "write a sanitized copy of a recording, then run the leak guard on it",
		flags:        sanitizeCmdFlags,
		run:          runSanitize,
		interspersed: true,
	})
}

type sanitizeConfig struct {
	out     string
	force   bool
	noMaps  bool
	sanFlag sanitizeFlags
}

func sanitizeCmdFlags(fs *flag.FlagSet) any {
	c := &sanitizeConfig{}
	fs.StringVar(&c.out, "o", "", "write the sanitized recording to `FILE` (required; - for stdout)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.noMaps, "no-default-maps", false, "map only the --map paths, not this machine's cwd, home, temp dir and CODEX_HOME")
	c.sanFlag.register(fs, true)
	applyConfig("sanitize", fs)
	return c
}

func runSanitize(cfg any, args []string, std stdio) error {
	c := cfg.(*sanitizeConfig)
	if len(args) != 1 {
		return usagef("want exactly one recording to sanitize")
	}
	if c.out == "" {
		return usagef("-o FILE is required (- for stdout)")
	}
	if c.out == "-" {
		// The copy is published (after the leak guard) into a private directory,
		// then written on stdout.
		tmp, err := os.MkdirTemp("", "codexrec-sanitize-")
		if err != nil {
			return usageOrIO(err)
		}
		defer os.RemoveAll(tmp)
		c.out = filepath.Join(tmp, filepath.Base(args[0]))
		err = runSanitize(c, args, std)
		if f, openErr := os.Open(c.out); openErr == nil {
			defer f.Close()
			if _, cpErr := io.Copy(std.out, f); cpErr != nil && err == nil {
				err = usageOrIO(cpErr)
			}
		}
		return err
	}
	cwd := ""
	if !c.noMaps {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return err
		}
	}
	z, names, err := c.sanFlag.sanitizer(cwd)
	if err != nil {
		return err
	}
	in, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer in.Close()
	rd, err := recorder.NewReader(in, args[0])
	if err != nil {
		return err
	}
	// The copy's meta entries come from the source: the session adds none.
	s := &record.Session{Sanitizer: z, Guard: z, SecretNames: names}
	err = s.CopyFile(c.out, rd, recorder.Options{Force: c.force})
	if errors.Is(err, recorder.ErrExists) || errors.Is(err, recorder.ErrNotReplaceable) {
		return createError(err)
	}
	warnProblems(std.err, "sanitize", rd)
	if r := s.Report(); len(r.Redactions) > 0 {
		fmt.Fprintf(std.err, "codexrec sanitize: %s\n", record.RedactionSummary(r.Redactions))
	}
	if err != nil {
		return finishError(err)
	}
	return nil
}
