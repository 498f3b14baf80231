package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/codexrec/codexrec/internal/mask"
	"github.com/codexrec/codexrec/recorder"
	"github.com/codexrec/codexrec/view"
	"github.com/codexrec/codexrec/wire"
)

// frame is one row of a session: the timeline's row built from the masked frame,
// with its masked content and notes. Segment and exit entries are rows without Dir.
type frame struct {
	row     *view.Row
	content string // masked exact content, without the newline
	notes   []view.Note
	event   string // for a segment or exit entry: what happened
}

// session is one recording under a served directory, read as it grows.
type session struct {
	id   string // stable: derived from the logical path
	path string // the recording's name once published (the logical path)
	rel  string // path relative to its served directory, for display

	mu       sync.Mutex
	file     string // the file being read: path, or its temporary file while recording
	fileInfo os.FileInfo
	header   recorder.Header
	trailer  *recorder.Trailer
	frames   []*frame
	bySeq    map[int64]int
	counts   counts
	live     bool   // the reader is waiting for more
	errText  string // why reading stopped early
	version  int64  // bumped on every change
	size     int64
	mod      time.Time
	last     time.Duration
	problems []recorder.Problem
}

type counts struct {
	C2S, S2C, Stderr, Findings, Redactions int
}

// current is the file that holds the recording now: the temporary file while it is
// written, the published name once it is gone.
func (s *session) current() string {
	s.mu.Lock()
	file := s.file
	s.mu.Unlock()
	if _, err := os.Stat(file); err != nil {
		return s.path
	}
	return file
}

func sessionID(path string) string {
	sum := sha256.Sum256([]byte(path))
	return hex.EncodeToString(sum[:6])
}

// ingest reads f from its start into s until the reader ends: at the trailer, when a
// published file has been read whole, when the writer is gone, or when ctx stops.
// notify is called after each batch of changes.
// command is how the page spells codexrec (Options.Command) in the advice it gives.
func (s *session) ingest(f *os.File, stop <-chan struct{}, poll time.Duration, reveal bool, command string, notify func()) {
	defer f.Close()
	m, err := mask.New(reveal)
	if err != nil {
		s.fail("sanitizer unavailable", notify)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	tr := &tailEnd{}
	tr.Follower = recorder.FollowFile(ctx, f, s.path, recorder.FollowOptions{Poll: poll,
		Idle: func() error {
			s.mu.Lock()
			s.version++
			s.mu.Unlock()
			notify()
			return nil
		},
		Gone: func(string) {
			tr.err = fmt.Errorf("the process writing it is gone (killed?); complete it with %s recover", command)
		}})
	rd, err := recorder.NewReader(tr, s.rel)
	if err != nil {
		s.fail(m.Text(err.Error()), notify)
		return
	}
	tr.Done = func() bool { return rd.Trailer() != nil }
	s.mu.Lock()
	s.header = maskHeader(rd.Header(), m)
	s.mu.Unlock()
	var b view.Builder
	for e, err := range rd.Entries() {
		if err != nil {
			s.fail(m.Text(err.Error()), notify)
			return
		}
		s.mu.Lock()
		s.add(&e, &b, m)
		if e.Type == recorder.TypeMeta {
			s.header = maskHeader(rd.Header(), m)
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.trailer = rd.Trailer()
	s.problems = rd.Problems()
	s.live = false
	if tr.err != nil {
		s.errText = m.Text(tr.err.Error())
	}
	s.version++
	s.mu.Unlock()
	notify()
}

// fail ends reading with why (already masked).
func (s *session) fail(why string, notify func()) {
	s.mu.Lock()
	s.live = false
	s.errText = why
	s.version++
	s.mu.Unlock()
	notify()
}

// add takes one entry; s.mu is held.
func (s *session) add(e *recorder.Entry, b *view.Builder, m *mask.Masker) {
	s.last = max(s.last, e.Time)
	switch e.Type {
	case recorder.TypeFrame:
		c := m.Frame(e)
		masked := *e
		masked.Line = append(c[:len(c):len(c)], '\n')
		masked.Msg.Method = m.Text(e.Msg.Method)
		masked.Msg.ID = wire.ID(m.Text(string(e.Msg.ID)))
		f := &frame{row: b.Frame(&masked), content: string(c)}
		f.row.Line, f.row.Text = nil, ""
		s.bySeq[e.Seq] = len(s.frames)
		s.frames = append(s.frames, f)
		switch e.Dir {
		case wire.ClientToServer:
			s.counts.C2S++
		case wire.ServerToClient:
			s.counts.S2C++
		default:
			s.counts.Stderr++
		}
	case recorder.TypeFinding, recorder.TypeRedaction:
		if e.Type == recorder.TypeFinding {
			s.counts.Findings++
		} else {
			s.counts.Redactions++
		}
		if i, ok := s.bySeq[e.Seq]; ok {
			n := view.NoteOf(e)
			n.Reason, n.Detail, n.Rule = m.Text(n.Reason), m.Text(n.Detail), m.Text(n.Rule)
			s.frames[i].notes = append(s.frames[i].notes, n)
		}
	case recorder.TypeSegment:
		b.Segment(e.Segment)
		s.frames = append(s.frames, &frame{row: &view.Row{Time: e.Time, Segment: e.Segment},
			event: m.Text(fmt.Sprintf("server process %d started: %s", e.Segment, joinArgs(e.Command)))})
	case recorder.TypeExit:
		what := fmt.Sprintf("server process %d exited with code %d", e.Segment, e.ExitCode)
		if e.Signal != "" {
			what += ", signal " + e.Signal
		}
		s.frames = append(s.frames, &frame{row: &view.Row{Time: e.Time, Segment: e.Segment}, event: m.Text(what)})
	}
}

func maskHeader(h recorder.Header, m *mask.Masker) recorder.Header {
	h.Command = m.Strings(h.Command)
	h.Notes = m.Strings(h.Notes)
	h.Scenario = m.Text(h.Scenario)
	if h.Socket != nil {
		sock := *h.Socket
		sock.Headers = nil // the list does not show them; credentials were replaced anyway
		sock.Session = m.Text(sock.Session)
		h.Socket = &sock
	}
	return h
}

func joinArgs(args []string) string {
	out := ""
	for i, a := range args {
		if i > 0 {
			out += " "
		}
		out += a
	}
	return out
}

// tailEnd follows a recording that may still be growing (recorder.Follower) and
// ends it at what was read when its temporary file is abandoned or reading stops,
// noting why in err.
type tailEnd struct {
	*recorder.Follower
	err error // why it ended early, if it did
}

func (r *tailEnd) Read(p []byte) (int, error) {
	n, err := r.Follower.Read(p)
	switch {
	case errors.Is(err, recorder.ErrAbandoned):
		r.err = fmt.Errorf("the recording was abandoned before it was published")
		return n, io.EOF
	case errors.Is(err, context.Canceled):
		return n, io.EOF
	}
	return n, err
}
