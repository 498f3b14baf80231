package extend

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codexrec/codexrec/wire"
)

// frameLog keeps the server lines one side of the session sent (the replay to the
// client, or the live server during the catch-up), each with its pairing key, and
// lets a caller wait until it holds enough of some keys.
type frameLog struct {
	mu      sync.Mutex
	frames  []logged
	byKey   map[string][]int
	changed chan struct{} // closed and replaced at each line
	part    []byte        // a line not yet complete (Write)
	out     io.Writer     // Write passes bytes on to it, once counted
}

type logged struct {
	key  string
	line []byte // without its newline
}

func newFrameLog(out io.Writer) *frameLog {
	return &frameLog{byKey: map[string][]int{}, changed: make(chan struct{}), out: out}
}

// key is a server line's pairing key: "r:ID" for the answer to the client's
// request ID, "q:METHOD" for a server request, "n:METHOD" for a notification, ""
// for anything else.
func key(m wire.Message) string {
	switch m.Kind {
	case wire.KindResponse, wire.KindError:
		return "r:" + string(m.ID)
	case wire.KindRequest:
		return "q:" + m.Method
	case wire.KindNotification:
		return "n:" + m.Method
	}
	return ""
}

// syncKey reports whether the catch-up waits for the live server to have sent as
// many frames of key k as the client had seen: answers, server requests, and the
// notifications that mark a thread's and a turn's progress. Other notifications
// (deltas, status changes, rate limits) vary in number from run to run.
func syncKey(k string) bool {
	switch k {
	case "n:thread/started", "n:turn/started", "n:turn/completed":
		return true
	}
	return strings.HasPrefix(k, "r:") || strings.HasPrefix(k, "q:")
}

// add logs one line (its newline may be there). A delta (a streamed piece of an
// item: most of a turn's lines) is neither kept nor counted: its ids are those of
// its item, which item/started carries, and its number varies.
func (l *frameLog) add(line []byte) {
	c := wire.Content(line)
	m := wire.Classify(c)
	if m.Kind == wire.KindNotification && strings.HasSuffix(strings.ToLower(m.Method), "delta") {
		return
	}
	k := key(m)
	l.mu.Lock()
	l.frames = append(l.frames, logged{k, append([]byte(nil), c...)})
	l.byKey[k] = append(l.byKey[k], len(l.frames)-1)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

// Write logs every complete line of p, then passes p on: a line is counted before
// the client can have read it.
func (l *frameLog) Write(p []byte) (int, error) {
	rest := p
	for {
		i := indexNL(rest)
		if i < 0 {
			break
		}
		line := rest[:i+1]
		if len(l.part) > 0 {
			line = append(l.part, line...)
			l.part = nil
		}
		l.add(line)
		rest = rest[i+1:]
	}
	l.part = append(l.part, rest...)
	return l.out.Write(p)
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// len is how many lines are logged (deltas left out).
func (l *frameLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.frames)
}

// need adds to counts the sync keys of the lines from..to.
func (l *frameLog) need(counts map[string]int, from, to int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.frames[from:to] {
		if syncKey(f.key) {
			counts[f.key]++
		}
	}
}

// waitFor waits until the log holds at least counts[k] lines of each key k, for at
// most timeout; the error names what is still missing.
func (l *frameLog) waitFor(ctx context.Context, counts map[string]int, timeout time.Duration, exited <-chan struct{}) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		l.mu.Lock()
		missing := l.missing(counts)
		ch := l.changed
		l.mu.Unlock()
		if len(missing) == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			l.mu.Lock()
			missing = l.missing(counts)
			l.mu.Unlock()
			if len(missing) == 0 {
				return nil
			}
			return fmt.Errorf("the real server exited before it sent %s", strings.Join(missing, ", "))
		case <-t.C:
			return fmt.Errorf("the real server did not send %s within %v", strings.Join(missing, ", "), timeout)
		}
	}
}

func (l *frameLog) missing(counts map[string]int) []string {
	var out []string
	for k, n := range counts {
		if have := len(l.byKey[k]); have < n {
			out = append(out, fmt.Sprintf("%s (%d of %d)", describeKey(k), have, n))
		}
	}
	sort.Strings(out)
	return out
}

func describeKey(k string) string {
	switch {
	case strings.HasPrefix(k, "r:"):
		return "the answer to request id " + k[2:]
	case strings.HasPrefix(k, "q:"):
		return "request " + k[2:]
	case strings.HasPrefix(k, "n:"):
		return "notification " + k[2:]
	}
	return k
}

// quiet waits until the log has had no new line for d, for at most limit.
func (l *frameLog) quiet(ctx context.Context, d, limit time.Duration) {
	end := time.After(limit)
	for {
		l.mu.Lock()
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(d):
			return
		case <-end:
			return
		case <-ctx.Done():
			return
		}
	}
}
