package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
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
	json    bool
	poll    time.Duration
}

func showFlags(fs *flag.FlagSet) any {
	c := &showConfig{}
	fs.Var(&c.methods, "method", "show only frames whose method matches `GLOB` ('*' spans '/'; repeatable)")
	fs.StringVar(&c.thread, "thread", "", "show only frames of the thread whose id starts with `ID`")
	fs.BoolVar(&c.raw, "raw", false, "print each frame's exact JSON instead of its summary")
	fs.BoolVar(&c.deltas, "deltas", false, "one line per agent text delta instead of one per run")
	fs.BoolVar(&c.follow, "follow", false, "keep reading a recording that codexrec record is still writing, until its trailer")
	fs.BoolVar(&c.json, "json", false, "print the (filtered) frames with their notes as one JSON document on stdout")
	fs.DurationVar(&c.poll, "poll", 100*time.Millisecond, "with --follow, how often to look for new entries")
	return c
}

func runShow(cfg any, args []string, std stdio) error {
	c := cfg.(*showConfig)
	if len(args) != 1 {
		return usagef("want exactly one recording")
	}
	path := args[0]
	if c.json {
		if c.follow || c.raw || c.deltas {
			return usagef("--json is the whole recording's frames: not with --follow, --raw or --deltas")
		}
		j := &view.TimelineJSON{Methods: c.methods, Thread: c.thread}
		if err := showFile(path, j, std); err != nil {
			return err
		}
		return j.WriteJSON(std.out)
	}
	t := &view.Text{W: std.out, Color: isTerminal(std.out) && os.Getenv("NO_COLOR") == "",
		Raw: c.raw, Deltas: c.deltas, Methods: c.methods, Thread: c.thread}
	if c.follow {
		tr, err := recorder.Follow(context.Background(), path, recorder.FollowOptions{Poll: c.poll, Idle: t.Flush,
			Waiting: func() { fmt.Fprintf(std.err, "codexrec show: waiting for %s to be recorded\n", path) },
			Gone: func(tmp string) {
				fmt.Fprintf(std.err, "codexrec show: the codexrec writing %s is gone (killed?); complete it with: codexrec recover %s\n", tmp, tmp)
			}})
		if err != nil {
			return err
		}
		defer tr.Close()
		rd, err := recorder.NewReader(tr, path)
		if err != nil {
			return err
		}
		tr.Done = func() bool { return rd.Trailer() != nil }
		return showEntries(rd, path, t, std.err)
	}
	return showFile(path, t, std)
}

func showFile(path string, t view.Timeline, std stdio) error {
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

func showEntries(rd *recorder.Reader, name string, t view.Timeline, stderr io.Writer) error {
	defer warnProblems(stderr, "show", rd)
	return view.Render(rd, name, t)
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
