package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{name: "view", args: "FILE -o report.html", flags: viewFlags, run: runView, interspersed: true,
		summary: "write a recording as one self-contained HTML page (two-lane timeline, no network)"})
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
	// The page is written from the file read twice, never held whole.
	return writeOutput(c.out, c.force, std, func(w io.Writer) error {
		problems, err := view.Page{Reveal: std.reveal}.WriteHTMLFile(w, args[0])
		warnProblems(std.err, "view", recordingProblems{&recorder.Recording{Name: args[0], Problems: problems}})
		return err
	})
}

// writeOutput writes a command's single output to path, or to stdout when path is
// "-": a file is 0600 (it holds recorded content), written to a temporary file
// renamed into place (never through a link), refused if it exists without force.
func writeOutput(path string, force bool, std stdio, write func(io.Writer) error) error {
	if path == "-" {
		bw := bufio.NewWriter(std.out)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	err := recorder.WriteFile(path, force, 0o600, write)
	if errors.Is(err, recorder.ErrExists) {
		return fmt.Errorf("%s exists (use --force to overwrite)", path)
	}
	return err
}
