package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{
		name:         "view",
		args:         "FILE -o report.html",
		summary:      "write a recording as one self-contained HTML page (two-lane timeline, no network)",
		flags:        viewFlags,
		run:          runView,
		interspersed: true,
	})
}

type viewConfig struct {
	out   string
	force bool
}

func viewFlags(fs *flag.FlagSet) any {
	c := &viewConfig{}
	fs.StringVar(&c.out, "o", "", "write the page to `FILE` (required; - for stdout)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	return c
}

func runView(cfg any, args []string, std stdio) error {
	c := cfg.(*viewConfig)
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	if c.out == "" {
		return usagef("-o FILE is required")
	}
	rec, err := recorder.ReadFile(args[0])
	if err != nil {
		return err
	}
	warnProblems(std.err, "view", recordingProblems{rec})
	return writeOutput(c.out, c.force, std, func(w io.Writer) error { return view.WriteHTML(w, rec) })
}

// writeOutput writes a command's single output to path, or to stdout when path is
// "-": a file is 0600 (it holds recorded content), refused if it exists without
// force, and removed when half-written.
func writeOutput(path string, force bool, std stdio, write func(io.Writer) error) error {
	if path == "-" {
		bw := bufio.NewWriter(std.out)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		if os.IsExist(err) {
			return fmt.Errorf("%s exists (use --force to overwrite)", path)
		}
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
