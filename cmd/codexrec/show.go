package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
)

func init() {
	register(&command{
		name:         "show",
		args:         "FILE [--method GLOB] [--thread ID] [--raw] [--deltas] [--follow]",
		summary:      "print a recording as a timeline, one line per frame, grouped by thread and turn",
		flags:        showFlags,
		run:          runShow,
		interspersed: true,
	})
}

type showConfig struct {
	methods multiFlag
	thread  string
	raw     bool
	deltas  bool
	follow  bool
	poll    time.Duration
}

func showFlags(fs *flag.FlagSet) any {
	c := &showConfig{}
	fs.Var(&c.methods, "method", "show only frames whose method matches `GLOB` ('*' spans '/'; repeatable)")
	fs.StringVar(&c.thread, "thread", "", "show only frames of the thread whose id starts with `ID`")
	fs.BoolVar(&c.raw, "raw", false, "print each frame's exact JSON instead of its summary")
	fs.BoolVar(&c.deltas, "deltas", false, "one line per agent text delta instead of one per run")
	fs.BoolVar(&c.follow, "follow", false, "keep reading a recording that codexrec record is still writing, until its trailer")
	fs.DurationVar(&c.poll, "poll", 100*time.Millisecond, "with --follow, how often to look for new entries")
	return c
}

func runShow(cfg any, args []string, std stdio) error {
	c := cfg.(*showConfig)
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	path := args[0]
	t := &view.Text{W: std.out, Color: isTerminal(std.out) && os.Getenv("NO_COLOR") == "",
		Raw: c.raw, Deltas: c.deltas, Methods: c.methods, Thread: c.thread}
	var in io.Reader
	if c.follow {
		f, err := openFollowed(path, c.poll, std.err)
		if err != nil {
			return err
		}
		defer f.Close()
		tr := &tailReader{f: f, final: path, poll: c.poll, idle: t.Flush, stderr: std.err}
		in = tr
		defer func() { tr.done = nil }()
		rd, err := recorder.NewReader(in, path)
		if err != nil {
			return err
		}
		tr.done = func() bool { return rd.Trailer() != nil }
		return showEntries(rd, path, t, std.err)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	defer f.Close()
	rd, err := recorder.NewReader(f, path)
	if err != nil {
		return err
	}
	return showEntries(rd, path, t, std.err)
}

func showEntries(rd *recorder.Reader, name string, t *view.Text, stderr io.Writer) error {
	defer warnProblems(stderr, "show", rd)
	if err := t.Header(name, rd.Header()); err != nil {
		return err
	}
	for e, err := range rd.Entries() {
		if err != nil {
			t.Flush()
			return err
		}
		if err := t.Entry(&e); err != nil {
			return err
		}
	}
	return t.Trailer(rd.Trailer())
}

// isTerminal reports whether w is a character device (a terminal), the only place
// where colour escapes belong.
func isTerminal(w io.Writer) bool {
	f, ok := terminalFile(w)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// openFollowed opens the recording at path, or, while codexrec record is still
// writing it, the temporary file the writer renames to path on close
// (".NAME.*.tmp" beside it): a temporary file newer than the published recording is
// a recording in progress (record --force over an old one). It waits for either.
func openFollowed(path string, poll time.Duration, stderr io.Writer) (*os.File, error) {
	said := false
	for {
		fin, ferr := os.Stat(path)
		if ferr != nil && !errors.Is(ferr, fs.ErrNotExist) {
			return nil, fmt.Errorf("recording: %w", ferr)
		}
		if tmp, mod := newestTemp(path); tmp != "" && (ferr != nil || !mod.Before(fin.ModTime())) {
			if f, err := os.Open(tmp); err == nil {
				return f, nil
			}
			continue // renamed into place meanwhile
		}
		if ferr == nil {
			f, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("recording: %w", err)
			}
			return f, nil
		}
		if !said {
			fmt.Fprintf(stderr, "codexrec show: waiting for %s to be recorded\n", path)
			said = true
		}
		time.Sleep(poll)
	}
}

func newestTemp(path string) (string, time.Time) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp"))
	var best string
	var bestTime time.Time
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.ModTime().After(bestTime) {
			best, bestTime = m, fi.ModTime()
		}
	}
	return best, bestTime
}

// tailReader reads a recording that may still be growing: at the end of the data it
// waits for more instead of reporting EOF, until the trailer has been read (done), or
// the file is the published recording at final (nothing more will be written to it).
// A temporary file removed before being published (the recording was aborted) ends
// the read with an error.
type tailReader struct {
	f      *os.File
	final  string
	poll   time.Duration
	done   func() bool
	idle   func() error
	stderr io.Writer
}

func (r *tailReader) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		if n > 0 || (err != nil && err != io.EOF) {
			return n, err
		}
		if r.done != nil && r.done() {
			return 0, io.EOF
		}
		fi, err := r.f.Stat()
		if err != nil {
			return 0, err
		}
		if fin, err := os.Stat(r.final); err == nil && os.SameFile(fi, fin) {
			// Published: everything was written before the rename; read what is left.
			if n, err := r.f.Read(p); n > 0 || err != nil {
				return n, err
			}
			return 0, io.EOF
		}
		if unlinked(fi) {
			return 0, fmt.Errorf("%s was abandoned before it was published (record aborted)", r.final)
		}
		if gone, known := recorder.WriterGone(r.f.Name()); known && gone {
			// Killed: nothing more will come. Serve what is there (a last line cut short
			// is read as truncated).
			if n, err := r.f.Read(p); n > 0 || err != nil && err != io.EOF {
				return n, err
			}
			fmt.Fprintf(r.stderr, "codexrec show: the codexrec writing %s is gone (killed?); complete it with: codexrec recover %s\n", r.f.Name(), r.f.Name())
			return 0, io.EOF
		}
		if r.idle != nil {
			if err := r.idle(); err != nil {
				return 0, err
			}
		}
		time.Sleep(r.poll)
	}
}
