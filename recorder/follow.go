package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FollowOptions tune Follow. The zero value polls every 100 ms and says nothing.
type FollowOptions struct {
	Poll time.Duration // how often to look for new data (default 100 ms)
	// Waiting, when set, is called once if neither the recording nor its temporary
	// file exists yet.
	Waiting func()
	// Idle, when set, is called once each time the follower has read everything
	// there is and starts waiting (a printer flushes, a viewer updates).
	Idle func() error
	// Gone, when set, is called with the temporary file's name when the process
	// writing it died: the follower then ends at what was written (Recover completes
	// it).
	Gone func(tmp string)
}

// Follower reads a recording that may still be growing: at the end of the data it
// waits for more instead of reporting EOF, until the trailer has been read (Done), or
// the file is the published recording (nothing more will be written to it). A
// temporary file removed before being published (the recording was aborted) ends
// the read with an error.
type Follower struct {
	f     *os.File
	final string
	o     FollowOptions
	ctx   context.Context
	idled bool
	// Done, when set, reports whether the reader on top has read the trailer.
	Done func() bool
}

// Follow opens the recording at path, or, while a Writer is still writing it, the
// temporary file the writer renames to path on close (".NAME.*.tmp" beside it): a
// temporary file newer than the published recording is a recording in progress
// (a forced record over an old one). It waits for either until ctx ends.
func Follow(ctx context.Context, path string, o FollowOptions) (*Follower, error) {
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	said := false
	for {
		fin, ferr := os.Stat(path)
		if ferr != nil && !errors.Is(ferr, fs.ErrNotExist) {
			return nil, fmt.Errorf("recording: %w", ferr)
		}
		if tmp, mod := newestTemp(path); tmp != "" && (ferr != nil || !mod.Before(fin.ModTime())) {
			if f, err := os.Open(tmp); err == nil {
				return &Follower{f: f, final: path, o: o, ctx: ctx}, nil
			}
			continue // renamed into place meanwhile
		}
		if ferr == nil {
			f, err := os.Open(path)
			if err != nil {
				return nil, fmt.Errorf("recording: %w", err)
			}
			return &Follower{f: f, final: path, o: o, ctx: ctx}, nil
		}
		if !said && o.Waiting != nil {
			o.Waiting()
		}
		said = true
		if err := sleep(ctx, o.Poll); err != nil {
			return nil, err
		}
	}
}

// FollowFile follows f, already open: the recording at path or the temporary file
// a Writer renames to path on close. Reading it ends as a Follower's does, or with
// ctx's error once ctx is done.
func FollowFile(ctx context.Context, f *os.File, path string, o FollowOptions) *Follower {
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	return &Follower{f: f, final: path, o: o, ctx: ctx}
}

// ErrAbandoned is a Follower's error when the temporary file it reads was removed
// before it was published (the recording was aborted).
var ErrAbandoned = errors.New("abandoned before it was published (record aborted)")

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
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

// Name is the file being read: the recording or its temporary file.
func (r *Follower) Name() string { return r.f.Name() }

// Close closes the file.
func (r *Follower) Close() error { return r.f.Close() }

func (r *Follower) Read(p []byte) (int, error) {
	for {
		n, err := r.f.Read(p)
		if n > 0 || (err != nil && err != io.EOF) {
			r.idled = false
			return n, err
		}
		if r.Done != nil && r.Done() {
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
			return 0, fmt.Errorf("%s was %w", r.final, ErrAbandoned)
		}
		if gone, known := WriterGone(r.f.Name()); known && gone {
			// Killed: nothing more will come. Serve what is there (a last line cut short
			// is read as truncated).
			if n, err := r.f.Read(p); n > 0 || err != nil && err != io.EOF {
				return n, err
			}
			if r.o.Gone != nil {
				r.o.Gone(r.f.Name())
			}
			return 0, io.EOF
		}
		if r.o.Idle != nil && !r.idled {
			r.idled = true
			if err := r.o.Idle(); err != nil {
				return 0, err
			}
		}
		if err := sleep(r.ctx, r.o.Poll); err != nil {
			return 0, err
		}
	}
}
