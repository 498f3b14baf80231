package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"syscall"

	"github.com/codexrec/codexrec/proxy"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/wire"
)

func init() {
	register(&command{
		name:    "record",
		args:    "-o FILE [flags] -- COMMAND [ARGS...]",
		summary: "run COMMAND (codex app-server) as a byte-faithful proxy and record both directions",
		flags:   recordFlags,
		run:     runRecord,
	})
}

// recordExtension is a stage of record's tap chain, such as schema validation or
// sanitizing. Extensions register in init, add their flags, and see every frame in
// registration order before it is written.
type recordExtension interface {
	// Setup checks the flags and amends the header before the recording is created.
	Setup(h *recorder.Header) error
	// Attach hooks the writer once it exists (BeforePublish, for example).
	Attach(w *recorder.Writer)
	// Frame sees a frame before it is written (it may rewrite f.Line) and returns
	// entries to write right after it (findings, redactions).
	Frame(f *wire.Frame, w *recorder.Writer) ([]recorder.Entry, error)
	// Finish runs when the session has ended, before the trailer; it may write entries
	// and a summary to stderr. A non-nil error becomes the exit status (exitError).
	Finish(w *recorder.Writer, stderr io.Writer) error
}

// entryRewriter is an extension that also cleans the entries other extensions
// return for a frame (sanitize: a finding's reason may quote the frame's text).
type entryRewriter interface {
	RewriteEntry(e *recorder.Entry)
}

// recordExtensions build the extensions, in order, from the record flag set.
var recordExtensions []struct {
	order int
	new   func(fs *flag.FlagSet) recordExtension
}

func registerRecordExtension(order int, f func(fs *flag.FlagSet) recordExtension) {
	recordExtensions = append(recordExtensions, struct {
		order int
		new   func(fs *flag.FlagSet) recordExtension
	}{order, f})
	sort.SliceStable(recordExtensions, func(i, j int) bool { return recordExtensions[i].order < recordExtensions[j].order })
}

type recordConfig struct {
	out      string
	force    bool
	noStderr bool
	queue    int
	exts     []recordExtension
}

func recordFlags(fs *flag.FlagSet) any {
	c := &recordConfig{}
	fs.StringVar(&c.out, "o", "", "write the recording to `FILE` (required)")
	fs.BoolVar(&c.force, "force", false, "overwrite FILE if it exists")
	fs.BoolVar(&c.noStderr, "no-stderr", false, "pass the server's stderr through but do not record it")
	fs.IntVar(&c.queue, "queue", proxy.DefaultQueueSize, "frames that may wait for the recorder before forwarding slows down")
	for _, e := range recordExtensions {
		c.exts = append(c.exts, e.new(fs))
	}
	return c
}

func runRecord(cfg any, args []string, std stdio) error {
	c := cfg.(*recordConfig)
	if c.out == "" {
		return usagef("-o FILE is required")
	}
	if len(args) == 0 {
		return usagef("no command to run: codexrec record -o FILE -- codex app-server")
	}
	exts := c.exts
	for _, o := range recorder.Orphans(c.out) {
		fmt.Fprintf(std.err, "codexrec record: %s is a recording a killed codexrec left unpublished; complete it with: codexrec recover %s\n", o, o)
	}
	w, err := createRecording(c.out, c.force, recorder.Header{Codexrec: Version, Command: args}, exts)
	if err != nil {
		return err
	}

	sigs := make(chan os.Signal, 4)
	// SIGQUIT ends the session like SIGTERM (the child gets SIGTERM) instead of
	// dumping goroutines and leaving the recording unpublished.
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	// Asking for SIGPIPE turns a write to a client that went away into an error
	// instead of killing the proxy before the recording is closed.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	tap := &recordTap{w: w, exts: exts, noStderr: c.noStderr}
	// ReuseLines: nothing in the tap chain keeps a frame past the call (validation
	// copies the frames it holds until the Codex version is known).
	p := &proxy.Proxy{Tap: tap.frame, Idle: w.Flush, QueueSize: c.queue, Signals: sigs, ReuseLines: true}
	cmd := exec.Command(args[0], args[1:]...)
	res, runErr := p.Run(cmd, std.in, std.out, std.err)

	t := recorder.Trailer{ExitCode: res.ExitCode, Signal: res.KilledBy}
	switch {
	case runErr != nil:
		t.Ended, t.Error, t.ExitCode = recorder.EndStartFailed, runErr.Error(), -1
	case res.Signal != nil:
		t.Ended, t.Signal = recorder.EndSignal, proxy.SignalName(res.Signal)
	case res.ClientEOF:
		t.Ended = recorder.EndClientEOF
	default:
		t.Ended = recorder.EndChildExit
	}
	if res.TapErr != nil {
		t.Ended, t.Error = recorder.EndError, res.TapErr.Error()
	}
	if res.ClientErr != nil {
		t.ClientError, t.LastDelivered = res.ClientErr.Error(), res.LastDelivered
	}
	if runErr == nil {
		w.WriteEntry(recorder.Entry{Type: recorder.TypeExit, Time: w.Since(), Segment: 1,
			ExitCode: res.ExitCode, Signal: res.KilledBy})
	}
	extErr := finishExtensions(exts, w, std.err)
	if err := closeRecording(w, t); err != nil {
		return err
	}
	if runErr != nil {
		return &exitError{exitUsage, fmt.Errorf("%w (recording %s says so)", runErr, c.out)}
	}
	if res.TapErr != nil {
		return &exitError{exitUsage, fmt.Errorf("recording failed, forwarding went on: %w", res.TapErr)}
	}
	if res.ClientErr != nil {
		return &exitError{exitUsage, fmt.Errorf("writing to the client failed: %w; %d frame(s) after seq %d were recorded but not delivered (marked undelivered in %s)",
			res.ClientErr, res.Undelivered, res.LastDelivered, w.PublishedPath())}
	}
	if res.ExitCode != 0 {
		return &exitError{code: res.ExitCode}
	}
	if extErr != nil {
		return extErr
	}
	return nil
}

// createRecording runs the extensions' Setup on h, creates the recording at path and
// attaches them to it: record and capture open a recording the same way. Setup runs
// before the file exists, so a bad flag value never leaves a file behind.
func createRecording(path string, force bool, h recorder.Header, exts []recordExtension) (*recorder.Writer, error) {
	for _, e := range exts {
		if err := e.Setup(&h); err != nil {
			return nil, &exitError{exitUsage, err}
		}
	}
	w, err := recorder.Create(path, h, recorder.Options{Force: force})
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	for _, e := range exts {
		e.Attach(w)
	}
	return w, nil
}

// finishExtensions lets every extension finish once the session has ended, before
// the trailer, and returns the first error (the exit status when nothing worse
// happened).
func finishExtensions(exts []recordExtension, w *recorder.Writer, stderr io.Writer) error {
	var first error
	for _, e := range exts {
		if err := e.Finish(w, stderr); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// closeRecording closes w with trailer t. A hook that refused to publish (the leak
// guard) decides the exit code with its exitError; any other failure is exitUsage.
func closeRecording(w *recorder.Writer, t recorder.Trailer) error {
	err := w.Close(t)
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee
	}
	return &exitError{exitUsage, err}
}

// recordTap is the proxy's tap in record: extensions, then the writer.
type recordTap struct {
	w        *recorder.Writer
	exts     []recordExtension
	noStderr bool
	version  bool
}

func (t *recordTap) frame(f *wire.Frame) error {
	if f.Dir == wire.Stderr && t.noStderr {
		return nil
	}
	// Extensions may replace f.Line (sanitizing): the proxy forwards its own copy of
	// the bytes and never looks at a frame again once it is tapped (see wire.Frame).
	if !t.version {
		if v := wire.CodexVersion(f); v != "" {
			t.version = true
			if err := t.w.UpdateHeader(f.Time, recorder.Header{CodexVersion: v}); err != nil {
				return err
			}
		}
	}
	var extra []recorder.Entry
	for _, e := range t.exts {
		more, err := e.Frame(f, t.w)
		if err != nil {
			return err
		}
		extra = append(extra, more...)
	}
	for _, e := range t.exts {
		if r, ok := e.(entryRewriter); ok {
			for i := range extra {
				r.RewriteEntry(&extra[i])
			}
		}
	}
	if err := t.w.WriteFrame(f); err != nil {
		return err
	}
	for _, e := range extra {
		if err := t.w.WriteEntry(e); err != nil {
			return err
		}
	}
	return nil
}
