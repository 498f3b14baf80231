package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
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
	fs      *flag.FlagSet
	out     string
	force   bool
	noMaps  bool
	sanFlag sanitizeFlags
}

func sanitizeCmdFlags(fs *flag.FlagSet) any {
	c := &sanitizeConfig{fs: fs}
	fs.StringVar(&c.out, "o", "", "write the sanitized recording to `FILE` (required)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.noMaps, "no-default-maps", false, "map only the --map paths, not this machine's cwd, home, temp dir and CODEX_HOME")
	c.sanFlag.register(fs, true)
	return c
}

func runSanitize(cfg any, args []string, std stdio) error {
	c := cfg.(*sanitizeConfig)
	if len(args) != 1 {
		return usagef("want exactly one recording to sanitize")
	}
	if c.out == "" {
		return usagef("-o FILE is required")
	}
	cwd := ""
	if !c.noMaps {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return err
		}
	}
	opts, names, err := c.sanFlag.options(cwd)
	if err != nil {
		return usagef("%v", err)
	}
	ext, err := newSanitizeExtension(opts, names)
	if err != nil {
		return usagef("%v", err)
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
	h := rd.Header()
	if err := ext.Setup(&h); err != nil {
		return err
	}
	w, err := recorder.Create(c.out, h, recorder.Options{Force: c.force})
	if err != nil {
		return err
	}
	ext.Attach(w)
	if err := copySanitized(rd, w, ext); err != nil {
		w.Abort()
		return err
	}
	warnProblems(std.err, "sanitize", rd)
	t := recorder.Trailer{Ended: recorder.EndError, ExitCode: -1, Error: "the source recording has no trailer (it was cut short)"}
	if src := rd.Trailer(); src != nil {
		t = *src
		t.Error = ext.z.Text(t.Error)
	}
	if err := ext.Finish(w, std.err); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(t); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return ee
		}
		return err
	}
	return nil
}

// copySanitized copies every entry of rd to w, frames rewritten and followed by the
// redactions they needed, free text of annotations and segment commands sanitized.
func copySanitized(rd *recorder.Reader, w *recorder.Writer, ext *sanitizeExtension) error {
	z := ext.z
	for e, err := range rd.Entries() {
		if err != nil {
			return err
		}
		switch e.Type {
		case recorder.TypeFrame:
			f := &wire.Frame{Seq: e.Seq, Time: e.Time, Dir: e.Dir, Line: e.Line, Msg: e.Msg}
			extra, _ := ext.Frame(f, w)
			if err := w.WriteFrame(f); err != nil {
				return err
			}
			for _, x := range extra {
				if err := w.WriteEntry(x); err != nil {
					return err
				}
			}
			continue
		case recorder.TypeMeta:
			if e.Header != nil {
				h := *e.Header
				sanitizeHeader(z, &h)
				e.Header = &h
			}
		case recorder.TypeSegment:
			e.Command = z.Strings(e.Command)
		}
		e.Reason, e.Detail = z.Text(e.Reason), z.Text(e.Detail)
		if err := w.WriteEntry(e); err != nil {
			return fmt.Errorf("%s entry of seq %d: %w", e.Type, e.Seq, err)
		}
	}
	return nil
}
